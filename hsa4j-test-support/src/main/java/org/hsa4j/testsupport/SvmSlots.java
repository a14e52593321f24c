package org.hsa4j.testsupport;

import java.util.concurrent.atomic.AtomicLong;

import org.hsa4j.memory.Svm;
import org.hsa4j.runtime.HsaRuntime;

/**
 * Per-state SVM memory for jcstress tests, carved from one fine-grained allocation.
 *
 * <p>jcstress builds a new state object for every sample (its constructor runs millions of times
 * in a run), so a state cannot afford a {@code hostMalloc}, and could not free it either: states
 * are simply dropped. Instead each test class makes one {@code SvmSlots} and every state takes the
 * next slot of the ring, zeroed. A slot is handed out again only after {@link #SLOTS} later
 * states, while jcstress keeps at most {@code strideSize * strideCount} states alive (10,240 with
 * the default options), replacing each only after its arbiter ran; so a slot is never shared by
 * two live states unless a run raises the stride options about six-fold.
 */
public final class SvmSlots {
    /** Slots in the ring: a power of two. */
    public static final int SLOTS = 1 << 16;
    /** Alignment and granule of a slot, so that every slot may hold AQL packets and atomics. */
    public static final long SLOT_ALIGNMENT = 64;

    private final Svm svm;
    private final long base;
    private final long slotBytes;
    private final AtomicLong next = new AtomicLong();

    private SvmSlots(Svm svm, long base, long slotBytes) {
        this.svm = svm;
        this.base = base;
        this.slotBytes = slotBytes;
    }

    /** A ring of {@link #SLOTS} slots of at least {@code bytes} bytes each, in {@code rt}'s host memory. */
    public static SvmSlots of(HsaRuntime rt, long bytes) {
        long slotBytes = (bytes + SLOT_ALIGNMENT - 1) / SLOT_ALIGNMENT * SLOT_ALIGNMENT;
        return new SvmSlots(rt.svm(), rt.hostMalloc(slotBytes * SLOTS), slotBytes);
    }

    /** The SVM address of the next slot, zeroed. */
    public long next() {
        long address = base + (next.getAndIncrement() & (SLOTS - 1)) * slotBytes;
        svm.fill(address, slotBytes, (byte) 0);
        return address;
    }
}

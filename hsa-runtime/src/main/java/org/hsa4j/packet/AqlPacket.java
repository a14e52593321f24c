package org.hsa4j.packet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;

/**
 * What every 64-byte AQL packet shares: the header word at offset 0 and the completion signal at
 * offset 56. Subclasses are flyweights over one ring slot: position one with {@link #wrap}, write
 * the body with plain stores, then publish the header with one 32-bit release store (each
 * subclass's {@code publish}, through {@link #publishWord}).
 */
public abstract class AqlPacket {
    /** Size of every AQL packet. */
    public static final int SIZE = 64;
    /** Alignment of every AQL packet. */
    public static final int ALIGNMENT = 64;
    /** u16 header. */
    public static final long HEADER = 0;
    /** u64 completion signal handle (0 for none), in every packet type. */
    public static final long COMPLETION_SIGNAL = 56;

    private static final VarHandle WORD = ValueLayout.JAVA_INT.varHandle();

    protected MemorySegment ring;
    protected long base;

    /** Points this flyweight at the slot {@code base} bytes into {@code ring}. */
    public AqlPacket wrap(MemorySegment ring, long base) {
        this.ring = ring;
        this.base = base;
        return this;
    }

    /** Sets the completion signal handle. */
    public AqlPacket completionSignal(long handle) {
        ring.set(ValueLayout.JAVA_LONG, base + COMPLETION_SIGNAL, handle);
        return this;
    }

    /** Zeroes bytes 4..63 of the slot, leaving the header word alone. */
    public AqlPacket clearBody() {
        ring.asSlice(base + 4, SIZE - 4).fill((byte) 0);
        return this;
    }

    /**
     * Publishes the packet: one 32-bit screlease (volatile) store of {@code header | rest << 16}.
     * Its release half is a system-scope release fence, so in fidelity mode the writer's earlier
     * stores (a host thread's store buffer, a kernel's caches) reach memory before the header does.
     */
    protected void publishWord(short header, short rest) {
        Svm.fence(MemoryOrder.RELEASE, MemoryScope.SYSTEM);
        WORD.setVolatile(ring, base + HEADER, PacketHeader.word(header, rest));
    }

    /** The 32-bit header word with scacquire (volatile) order, as a packet processor reads it. */
    public static int loadHeaderWordAcquire(MemorySegment ring, long base) {
        return (int) WORD.getVolatile(ring, base + HEADER);
    }

    /**
     * Stores the INVALID type into a consumed slot's header word (a Java release store). The
     * producer cannot reuse the slot before the read index's later screlease store frees it.
     */
    public static void storeInvalid(MemorySegment ring, long base) {
        WORD.setRelease(ring, base + HEADER, PacketType.INVALID.code());
    }
}

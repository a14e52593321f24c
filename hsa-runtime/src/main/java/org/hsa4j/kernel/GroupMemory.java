package org.hsa4j.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * A checked view of the calling work-item's group segment: typed plain accesses and atomics at
 * byte offsets, in the vocabulary of the SVM views ({@code get}/{@code set} plain,
 * {@code atomicLoad}/{@code atomicStore} with a {@link MemoryOrder}, {@code fetchAdd} and
 * {@code compareExchange} sequentially consistent). Group memory is coherent within its
 * workgroup, so no scope is taken. Offsets must be aligned to the access size and inside the
 * segment the packet asked for.
 *
 * <p>Normal mode hands out {@link Direct}: each access is one segment access. Fidelity mode hands
 * out {@link CheckedGroupMemory}, which records every access in the compute unit's
 * {@link GroupShadow} and fails the dispatch (EXCEPTION, on the queue's error callback and the
 * completion signal) at the first access that races with another work-item's access to the same
 * bytes in the same barrier phase, unordered by a release and an acquire of these atomics. The executor picks the kind once, so normal mode tests nothing
 * per access. Take it with {@link WorkItem#groupMemory()}; it belongs to its work-item and its
 * workgroup, like the {@code WorkItem}.
 */
public abstract sealed class GroupMemory permits GroupMemory.Direct, CheckedGroupMemory {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /** The work-item whose group segment this is (its segment changes with its workgroup). */
    final WorkItem item;

    GroupMemory(WorkItem item) {
        this.item = item;
    }

    /** A plain read of {@code bytes} bytes at {@code offset} by this view's work-item is about to happen. */
    abstract void beforeRead(long offset, int bytes);

    /** A plain write of {@code bytes} bytes at {@code offset} is about to happen. */
    abstract void beforeWrite(long offset, int bytes);

    /**
     * An atomic access of {@code bytes} bytes at {@code offset} is about to happen; {@code sync}
     * holds {@link GroupShadow#ACQUIRE} and {@link GroupShadow#RELEASE} as its order has them.
     */
    abstract void beforeAtomic(long offset, int bytes, int sync);

    /** Size of the group segment in bytes, as the packet asked for it. */
    public final long byteSize() {
        return item.groupSegment.byteSize();
    }

    /** Plain read of the int at {@code offset}. */
    public final int getInt(long offset) {
        beforeRead(offset, Integer.BYTES);
        return item.groupSegment.get(ValueLayout.JAVA_INT, offset);
    }

    /** Plain write of the int at {@code offset}. */
    public final void setInt(long offset, int value) {
        beforeWrite(offset, Integer.BYTES);
        item.groupSegment.set(ValueLayout.JAVA_INT, offset, value);
    }

    /** Plain read of the long at {@code offset}. */
    public final long getLong(long offset) {
        beforeRead(offset, Long.BYTES);
        return item.groupSegment.get(ValueLayout.JAVA_LONG, offset);
    }

    /** Plain write of the long at {@code offset}. */
    public final void setLong(long offset, long value) {
        beforeWrite(offset, Long.BYTES);
        item.groupSegment.set(ValueLayout.JAVA_LONG, offset, value);
    }

    /** Plain read of the float at {@code offset}. */
    public final float getFloat(long offset) {
        beforeRead(offset, Float.BYTES);
        return item.groupSegment.get(ValueLayout.JAVA_FLOAT, offset);
    }

    /** Plain write of the float at {@code offset}. */
    public final void setFloat(long offset, float value) {
        beforeWrite(offset, Float.BYTES);
        item.groupSegment.set(ValueLayout.JAVA_FLOAT, offset, value);
    }

    /** Plain read of the double at {@code offset}. */
    public final double getDouble(long offset) {
        beforeRead(offset, Double.BYTES);
        return item.groupSegment.get(ValueLayout.JAVA_DOUBLE, offset);
    }

    /** Plain write of the double at {@code offset}. */
    public final void setDouble(long offset, double value) {
        beforeWrite(offset, Double.BYTES);
        item.groupSegment.set(ValueLayout.JAVA_DOUBLE, offset, value);
    }

    /**
     * Atomic load of the int at {@code offset}: RELAXED opaque, ACQUIRE and SEQ_CST volatile.
     *
     * @throws HsaException INVALID_ARGUMENT for an order a load cannot have
     */
    public final int atomicLoadInt(long offset, MemoryOrder order) {
        boolean relaxed = loadOrder(order);
        beforeAtomic(offset, Integer.BYTES, relaxed ? 0 : GroupShadow.ACQUIRE);
        MemorySegment s = item.groupSegment;
        return relaxed ? (int) INT.getOpaque(s, offset) : (int) INT.getVolatile(s, offset);
    }

    /**
     * Atomic store of the int at {@code offset}: RELAXED opaque, RELEASE and SEQ_CST volatile.
     *
     * @throws HsaException INVALID_ARGUMENT for an order a store cannot have
     */
    public final void atomicStoreInt(long offset, int value, MemoryOrder order) {
        boolean relaxed = storeOrder(order);
        beforeAtomic(offset, Integer.BYTES, relaxed ? 0 : GroupShadow.RELEASE);
        MemorySegment s = item.groupSegment;
        if (relaxed) {
            INT.setOpaque(s, offset, value);
        } else {
            INT.setVolatile(s, offset, value);
        }
    }

    /** Atomic fetch-and-add on the int at {@code offset} (sequentially consistent); returns the previous value. */
    public final int fetchAddInt(long offset, int delta) {
        beforeAtomic(offset, Integer.BYTES, GroupShadow.ACQUIRE | GroupShadow.RELEASE);
        return (int) INT.getAndAdd(item.groupSegment, offset, delta);
    }

    /** Atomic compare-and-swap on the int at {@code offset} (sequentially consistent); returns the value found. */
    public final int compareExchangeInt(long offset, int expected, int desired) {
        beforeAtomic(offset, Integer.BYTES, GroupShadow.ACQUIRE | GroupShadow.RELEASE);
        return (int) INT.compareAndExchange(item.groupSegment, offset, expected, desired);
    }

    /**
     * Atomic load of the long at {@code offset}: RELAXED opaque, ACQUIRE and SEQ_CST volatile.
     *
     * @throws HsaException INVALID_ARGUMENT for an order a load cannot have
     */
    public final long atomicLoadLong(long offset, MemoryOrder order) {
        boolean relaxed = loadOrder(order);
        beforeAtomic(offset, Long.BYTES, relaxed ? 0 : GroupShadow.ACQUIRE);
        MemorySegment s = item.groupSegment;
        return relaxed ? (long) LONG.getOpaque(s, offset) : (long) LONG.getVolatile(s, offset);
    }

    /**
     * Atomic store of the long at {@code offset}: RELAXED opaque, RELEASE and SEQ_CST volatile.
     *
     * @throws HsaException INVALID_ARGUMENT for an order a store cannot have
     */
    public final void atomicStoreLong(long offset, long value, MemoryOrder order) {
        boolean relaxed = storeOrder(order);
        beforeAtomic(offset, Long.BYTES, relaxed ? 0 : GroupShadow.RELEASE);
        MemorySegment s = item.groupSegment;
        if (relaxed) {
            LONG.setOpaque(s, offset, value);
        } else {
            LONG.setVolatile(s, offset, value);
        }
    }

    /** Atomic fetch-and-add on the long at {@code offset} (sequentially consistent); returns the previous value. */
    public final long fetchAddLong(long offset, long delta) {
        beforeAtomic(offset, Long.BYTES, GroupShadow.ACQUIRE | GroupShadow.RELEASE);
        return (long) LONG.getAndAdd(item.groupSegment, offset, delta);
    }

    /** Atomic compare-and-swap on the long at {@code offset} (sequentially consistent); returns the value found. */
    public final long compareExchangeLong(long offset, long expected, long desired) {
        beforeAtomic(offset, Long.BYTES, GroupShadow.ACQUIRE | GroupShadow.RELEASE);
        return (long) LONG.compareAndExchange(item.groupSegment, offset, expected, desired);
    }

    /** True for RELAXED, false for the scacquire orders of a load; INVALID_ARGUMENT for the others. */
    private static boolean loadOrder(MemoryOrder order) {
        return switch (order) {
            case RELAXED -> true;
            case ACQUIRE, SEQ_CST -> false;
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, "an atomic load cannot be " + order);
        };
    }

    /** True for RELAXED, false for the screlease orders of a store; INVALID_ARGUMENT for the others. */
    private static boolean storeOrder(MemoryOrder order) {
        return switch (order) {
            case RELAXED -> true;
            case RELEASE, SEQ_CST -> false;
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, "an atomic store cannot be " + order);
        };
    }

    /** Normal mode's view: every access goes straight to the segment. */
    static final class Direct extends GroupMemory {
        Direct(WorkItem item) {
            super(item);
        }

        @Override
        void beforeRead(long offset, int bytes) {
        }

        @Override
        void beforeWrite(long offset, int bytes) {
        }

        @Override
        void beforeAtomic(long offset, int bytes, int sync) {
        }
    }
}

package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Normal mode's {@link SvmAccess}: every access at home, with the Java access {@link MemoryOrder}
 * names (plain accesses unaligned; a RELAXED atomic load or store opaque, any other volatile), and
 * every synchronization hook a no-op: the Java fences and volatile accesses of the callers are the
 * whole of the memory model.
 */
final class DirectAccess extends SvmAccess {
    private static final ValueLayout.OfShort SHORT_U = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt INT_U = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG_U = ValueLayout.JAVA_LONG_UNALIGNED;

    @Override
    public boolean coherent() {
        return false;
    }

    @Override
    public long load(Allocation a, long address, int size) {
        MemorySegment m = a.segment();
        long off = address - a.base;
        return switch (size) {
            case 1 -> m.get(ValueLayout.JAVA_BYTE, off);
            case 2 -> m.get(SHORT_U, off);
            case 4 -> m.get(INT_U, off);
            default -> m.get(LONG_U, off);
        };
    }

    @Override
    public void store(Allocation a, long address, int size, long bits) {
        MemorySegment m = a.segment();
        long off = address - a.base;
        switch (size) {
            case 1 -> m.set(ValueLayout.JAVA_BYTE, off, (byte) bits);
            case 2 -> m.set(SHORT_U, off, (short) bits);
            case 4 -> m.set(INT_U, off, (int) bits);
            default -> m.set(LONG_U, off, bits);
        }
    }

    @Override
    public void copy(Allocation da, long dst, Allocation sa, long src, long bytes) {
        MemorySegment.copy(sa.segment(), src - sa.base, da.segment(), dst - da.base, bytes);
    }

    @Override
    public void fill(Allocation a, long address, long bytes, byte value) {
        a.segment().asSlice(address - a.base, bytes).fill(value);
    }

    @Override
    public long atomic(Allocation a, long address, int size, AtomicOp op, long x, long y, MemoryOrder order,
                       MemoryScope scope) {
        return op.apply(a.segment(), address - a.base, size, x, y, order);
    }

    @Override
    public void rawAccess(Allocation a, long address, long bytes) {
    }

    @Override
    public ElementAccess elements(Allocation a) {
        return null;
    }

    @Override
    public void fence(MemoryOrder order, MemoryScope scope) {
    }

    @Override
    public void release(MemoryScope scope) {
    }

    @Override
    public void acquire(MemoryScope scope) {
    }

    @Override
    public void drainHost() {
    }

    @Override
    public void released(Allocation a) {
    }

    @Override
    public void packetAcquire(int agent, int fenceScope) {
    }

    @Override
    public void beginWork() {
    }

    @Override
    public void endWork(int fenceScope) {
    }

    @Override
    public void packetRelease(int agent, int fenceScope) {
    }

    @Override
    protected Object unitState(int agent, int unit) {
        return null;
    }
}

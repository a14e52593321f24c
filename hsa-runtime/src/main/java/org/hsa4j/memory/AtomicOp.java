package org.hsa4j.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * An atomic operation on 4 or 8 naturally aligned bytes, as an {@link SvmAccess} strategy runs it:
 * at home ({@link SvmAccess#DIRECT}), or in fidelity mode at the allocation's coherence point, home
 * memory or an agent's L2 line (under its lock). Operands and
 * results are the value's bits in a long (an int sign-extended). Orders map as in {@link Svm}:
 * a RELAXED load or store is opaque, any other is volatile; read-modify-writes are volatile.
 * Public so that layers with their own typed views (the C++AMP layer) can run their atomics through
 * {@link SvmAccess#atomic}; only this package applies them (the coherent strategy through
 * {@link SvmAccess}'s accessors).
 */
public enum AtomicOp {
    /** Load; returns the value. */
    LOAD,
    /** Store of {@code x}; returns 0. */
    STORE,
    /** Exchange with {@code x}; returns the previous value. */
    EXCHANGE,
    /** Compare-and-swap: if the value is {@code x} store {@code y}; returns the value found. */
    COMPARE_EXCHANGE,
    /** Fetch-and-add of {@code x}. */
    ADD,
    /** Fetch-and-and with {@code x}. */
    AND,
    /** Fetch-and-or with {@code x}. */
    OR,
    /** Fetch-and-xor with {@code x}. */
    XOR,
    /** Signed minimum with {@code x}; returns the previous value. */
    MIN,
    /** Signed maximum with {@code x}; returns the previous value. */
    MAX,
    /** Floating-point add of {@code x} (float bits for 4 bytes, double bits for 8) as a CAS loop. */
    FLOAT_ADD;

    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /** True when the operation may change memory. */
    boolean writes() {
        return this != LOAD;
    }

    /** True when the operation reads memory (so an acquire order applies to it). */
    boolean reads() {
        return this != STORE;
    }

    /** Runs the operation on {@code size} bytes at {@code offset} of {@code m}. */
    long apply(MemorySegment m, long offset, int size, long x, long y, MemoryOrder order) {
        return size == 4 ? applyInt(m, offset, (int) x, (int) y, order) : applyLong(m, offset, x, y, order);
    }

    private int applyInt(MemorySegment m, long off, int x, int y, MemoryOrder order) {
        switch (this) {
            case LOAD:
                return order == MemoryOrder.RELAXED ? (int) INT.getOpaque(m, off) : (int) INT.getVolatile(m, off);
            case STORE:
                if (order == MemoryOrder.RELAXED) {
                    INT.setOpaque(m, off, x);
                } else {
                    INT.setVolatile(m, off, x);
                }
                return 0;
            case EXCHANGE:
                return (int) INT.getAndSet(m, off, x);
            case COMPARE_EXCHANGE:
                return (int) INT.compareAndExchange(m, off, x, y);
            case ADD:
                return (int) INT.getAndAdd(m, off, x);
            case AND:
                return (int) INT.getAndBitwiseAnd(m, off, x);
            case OR:
                return (int) INT.getAndBitwiseOr(m, off, x);
            case XOR:
                return (int) INT.getAndBitwiseXor(m, off, x);
            default:
                int seen = (int) INT.getVolatile(m, off);
                while (true) {
                    int next = switch (this) {
                        case MIN -> Math.min(seen, x);
                        case MAX -> Math.max(seen, x);
                        default -> Float.floatToRawIntBits(Float.intBitsToFloat(seen) + Float.intBitsToFloat(x));
                    };
                    if (next == seen && this != FLOAT_ADD) {
                        return seen;
                    }
                    int witness = (int) INT.compareAndExchange(m, off, seen, next);
                    if (witness == seen) {
                        return seen;
                    }
                    seen = witness;
                }
        }
    }

    private long applyLong(MemorySegment m, long off, long x, long y, MemoryOrder order) {
        switch (this) {
            case LOAD:
                return order == MemoryOrder.RELAXED ? (long) LONG.getOpaque(m, off) : (long) LONG.getVolatile(m, off);
            case STORE:
                if (order == MemoryOrder.RELAXED) {
                    LONG.setOpaque(m, off, x);
                } else {
                    LONG.setVolatile(m, off, x);
                }
                return 0;
            case EXCHANGE:
                return (long) LONG.getAndSet(m, off, x);
            case COMPARE_EXCHANGE:
                return (long) LONG.compareAndExchange(m, off, x, y);
            case ADD:
                return (long) LONG.getAndAdd(m, off, x);
            case AND:
                return (long) LONG.getAndBitwiseAnd(m, off, x);
            case OR:
                return (long) LONG.getAndBitwiseOr(m, off, x);
            case XOR:
                return (long) LONG.getAndBitwiseXor(m, off, x);
            default:
                long seen = (long) LONG.getVolatile(m, off);
                while (true) {
                    long next = switch (this) {
                        case MIN -> Math.min(seen, x);
                        case MAX -> Math.max(seen, x);
                        default -> Double.doubleToRawLongBits(Double.longBitsToDouble(seen) + Double.longBitsToDouble(x));
                    };
                    if (next == seen && this != FLOAT_ADD) {
                        return seen;
                    }
                    long witness = (long) LONG.compareAndExchange(m, off, seen, next);
                    if (witness == seen) {
                        return seen;
                    }
                    seen = witness;
                }
        }
    }
}

package org.hsa4j.amp;

import org.hsa4j.memory.MemoryOrder;

/**
 * C++11 memory orders ({@code std::memory_order}) for the layer's kernel-side atomics. Unlike the
 * runtime's HSA orders, acquire and release here are plain C++11 acquire/release, which are not
 * sequentially consistent (store buffering is allowed), so they map to Java's acquire/release
 * accesses; only {@link #SEQ_CST} is a volatile access.
 *
 * <table>
 * <caption>How each order maps to a VarHandle access mode</caption>
 * <tr><th>order</th><th>load</th><th>store</th><th>read-modify-write</th></tr>
 * <tr><td>RELAXED</td><td>getOpaque</td><td>setOpaque</td><td>the Acquire form (Java has no relaxed RMW;
 *     compare-and-set loops use weakCompareAndSetPlain)</td></tr>
 * <tr><td>CONSUME, ACQUIRE</td><td>getAcquire</td><td>(invalid)</td><td>the Acquire form</td></tr>
 * <tr><td>RELEASE</td><td>(invalid)</td><td>setRelease</td><td>the Release form</td></tr>
 * <tr><td>ACQ_REL</td><td>(invalid)</td><td>(invalid)</td><td>the volatile form (a valid strengthening)</td></tr>
 * <tr><td>SEQ_CST</td><td>getVolatile</td><td>setVolatile</td><td>the volatile form</td></tr>
 * </table>
 *
 * <p>In the runtime's fidelity mode the atomics run in its coherence model instead, at system scope,
 * with the HSA order of the same name ({@link #hsaOrder()}; CONSUME as ACQUIRE): the model's caches
 * see the release and acquire halves the C++ order has, and the access itself is volatile there,
 * a valid strengthening.
 *
 * <p>Every atomic of the views has an explicit form taking an order and a short form without one
 * that is {@link #SEQ_CST}, as C++'s {@code atomic_load} and {@code atomic_load_explicit} are.
 */
public enum CppMemoryOrder {
    /** {@code memory_order_relaxed}: atomic, coherent, unordered. */
    RELAXED,
    /** {@code memory_order_consume}: treated as acquire, as every C++ compiler does. */
    CONSUME,
    /** {@code memory_order_acquire}. */
    ACQUIRE,
    /** {@code memory_order_release}. */
    RELEASE,
    /** {@code memory_order_acq_rel}. */
    ACQ_REL,
    /** {@code memory_order_seq_cst}. */
    SEQ_CST;

    /** True when an atomic load may use this order. */
    public boolean validForLoad() {
        return this != RELEASE && this != ACQ_REL;
    }

    /** The runtime's order with the same release and acquire halves (CONSUME is ACQUIRE): the mapping's reference. */
    public MemoryOrder hsaOrder() {
        return switch (this) {
            case RELAXED -> MemoryOrder.RELAXED;
            case CONSUME, ACQUIRE -> MemoryOrder.ACQUIRE;
            case RELEASE -> MemoryOrder.RELEASE;
            case ACQ_REL -> MemoryOrder.ACQ_REL;
            case SEQ_CST -> MemoryOrder.SEQ_CST;
        };
    }

    /** True when an atomic store may use this order. */
    public boolean validForStore() {
        return this == RELAXED || this == RELEASE || this == SEQ_CST;
    }
}

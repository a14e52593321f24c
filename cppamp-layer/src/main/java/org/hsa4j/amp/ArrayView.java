package org.hsa4j.amp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Objects;

import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.AtomicOp;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.SvmAccess;
import org.hsa4j.signal.WaitState;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * A typed, shaped view of SVM data ({@code concurrency::array_view}): kernels and the host read and
 * write the same memory, with no copies. Dimension 0 is the most significant; a view made over
 * memory is row-major and dense, a {@code section} keeps its parent's strides. Every coordinate is
 * checked against the view's extent.
 *
 * <p>C++AMP's copy management has little to do over SVM: {@link #synchronize()} waits for the kernels
 * that may write the view (everything queued on the layer's accelerator views before the call) and
 * fences; {@link #refresh()} fences;
 * {@link #discardData()} is a hint with nothing to skip.
 *
 * <p>Fidelity mode: when the runtime's {@link SvmAccess} strategy is the coherent one, every element
 * read and write and every atomic goes through it, so an amp kernel sees coarse-grained data, fences and
 * scopes as a GPU would. The views test one final field, {@code cursor} (the strategy's element
 * accesses), on each access: null (the mode off) takes the direct segment access, and since the field never changes the JIT hoists the
 * test out of the kernel loops. The model's {@link Allocation} is resolved once, when the view is
 * made. Host threads are coherent with home memory in the model, so host access through a view
 * (after {@link #synchronize()}) reads and writes home. The layer's atomics carry no scope
 * argument and act at system scope, like the runtime's typed views; their C++11 orders map to the
 * model's as {@link CppMemoryOrder} says.
 *
 * <h2>One implementation, four element types</h2>
 * The typed views ({@link IntArrayView}, {@link LongArrayView}, {@link FloatArrayView},
 * {@link DoubleArrayView}) hold no logic of their own: each is the element accessors of its Java
 * type, one line apiece, over this class. Here live the shape and index checks, the fidelity
 * branch of plain element access ({@link #modelLoad}, {@link #modelStore}) and every atomic,
 * written once over the element's bits ({@code long}, sign-extended for ints) with a branch on
 * the element width. Why a base class rather than a build-time generator of four copies: the
 * typed part is tiny, and a generator would keep four copies of the atomics for the JIT to
 * compile and the reader to check, where here they are one. What it costs: the width test, on a
 * final field, is one predictable branch per atomic (plain accesses have none: the typed
 * accessors go straight to the segment with their own layout, so kernel loops over them still
 * vectorise as before); the VarHandles stay static finals, so each access still compiles to the
 * single instruction it did.
 */
public abstract sealed class ArrayView permits IntArrayView, LongArrayView, FloatArrayView, DoubleArrayView {
    final MemorySegment segment;
    final long address;
    final Extent extent;
    final int rank;
    final int n0;
    final int n1;
    final int n2;
    final long origin;
    final long s0;
    final long s1;
    final AcceleratorView source;
    final ViewMemory memory;
    /** Bytes per element: 4 or 8. */
    final int size;
    /** The runtime's memory access strategy. */
    final SvmAccess access;
    /** The allocation the view lies in (fidelity mode only, else null). */
    final Allocation allocation;
    /**
     * The strategy's element accesses (fidelity mode: a cursor holding the last L1 sector they
     * touched), or null when plain accesses and atomics go straight to the segment.
     */
    final SvmAccess.ElementAccess cursor;

    ArrayView(ViewMemory memory, int size, Extent extent, long origin, long s0, long s1, AcceleratorView source) {
        this.memory = memory;
        this.size = size;
        this.segment = memory.segment();
        this.address = memory.address();
        this.access = memory.access();
        this.allocation = memory.allocation();
        this.cursor = allocation == null ? null : access.elements(allocation);
        this.extent = extent;
        this.rank = extent.rank();
        this.n0 = extent.get(0);
        this.n1 = rank > 1 ? extent.get(1) : 1;
        this.n2 = rank > 2 ? extent.get(2) : 1;
        this.origin = origin;
        this.s0 = s0;
        this.s1 = s1;
        this.source = source;
    }

    /** Dense row-major strides of {@code extent}: elements per step of dimensions 0 and 1. */
    static long[] denseStrides(Extent extent) {
        int r = extent.rank();
        long n1 = r > 1 ? extent.get(1) : 1;
        long n2 = r > 2 ? extent.get(2) : 1;
        return r == 1 ? new long[] {1, 1} : r == 2 ? new long[] {n1, 1} : new long[] {n1 * n2, n2};
    }

    /** The view's shape. */
    public Extent extent() {
        return extent;
    }

    /** Bytes per element. */
    public final int elementSize() {
        return size;
    }

    /** SVM address of the element at {@code idx}. */
    public long address(Index idx) {
        return address + offset(idx) * elementSize();
    }

    /**
     * Waits for the kernels that write this view, then fences so the host sees their writes. The layer
     * cannot tell which closures write which memory, so it waits for everything queued on every
     * accelerator view of the layer before the call, whichever way the view was made (over an
     * {@link Array} or over raw SVM with {@link Accelerator#floats}); work queued later is not waited
     * for. Parks soon; an interrupt ends the wait with {@code HsaException(INVALID_RUNTIME_STATE)}.
     */
    public void synchronize() {
        memory.amp().waitForQueuedWork(WaitState.BLOCKED);
        refresh();
    }

    /**
     * Fences so the next reads see what others wrote to the underlying memory: a system-scope
     * acquire, which in fidelity mode also drops the calling thread's stale copies (a host thread
     * whose kernel another thread waited for has acquired nothing yet).
     */
    public void refresh() {
        VarHandle.fullFence();
        access.fence(MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
    }

    /** Declares the current contents unneeded; over SVM nothing is copied, so nothing is skipped. */
    public void discardData() {
        Objects.requireNonNull(segment);
    }

    /**
     * Sets every element of the view (not of its parent) to zero from the host. Call it when no
     * kernel writes the view ({@link #synchronize()} first if one might).
     */
    public void zero() {
        int size = elementSize();
        long rows = rank == 1 ? 1 : rank == 2 ? n0 : (long) n0 * n1;
        long rowLength = rank == 1 ? n0 : rank == 2 ? n1 : n2;
        for (long r = 0; r < rows; r++) {
            long start = origin + (rank == 1 ? 0 : rank == 2 ? r * s0 : (r / n1) * s0 + (r % n1) * s1);
            segment.asSlice(start * size, rowLength * size).fill((byte) 0);
        }
    }

    /**
     * Copies the Java array this view was made over ({@link Accelerator#wrap(float[])}, ...) into
     * its SVM copy again: kernels queued afterwards see the array's current contents.
     *
     * @throws HsaException INVALID_ARGUMENT when the view was not made over a Java array
     */
    public void copyIn() {
        copy(hostArray(), memory, true);
    }

    /**
     * Waits for the kernels that write the view ({@link #synchronize()}) and copies its SVM copy
     * back into the Java array it was made over: C++AMP's synchronize of an array_view over host
     * data, made explicit.
     *
     * @throws HsaException INVALID_ARGUMENT when the view was not made over a Java array
     */
    public void copyOut() {
        Object array = hostArray();
        synchronize();
        copy(array, memory, false);
    }

    private Object hostArray() {
        Object array = memory.hostArray();
        if (array == null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, this + " was not made over a Java array");
        }
        return array;
    }

    /** Copies the whole of primitive array {@code array} into {@code m} ({@code in}) or back out of it. */
    static void copy(Object array, ViewMemory m, boolean in) {
        ValueLayout layout;
        int n;
        switch (array) {
            case int[] a -> {
                layout = ValueLayout.JAVA_INT;
                n = a.length;
            }
            case long[] a -> {
                layout = ValueLayout.JAVA_LONG;
                n = a.length;
            }
            case float[] a -> {
                layout = ValueLayout.JAVA_FLOAT;
                n = a.length;
            }
            case double[] a -> {
                layout = ValueLayout.JAVA_DOUBLE;
                n = a.length;
            }
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, "not an int, long, float or double array: "
                    + array.getClass().getName());
        }
        if (in) {
            MemorySegment.copy(array, 0, m.segment(), layout, 0, n);
        } else {
            MemorySegment.copy(m.segment(), layout, 0, array, 0, n);
        }
    }

    final long offset(int i) {
        if (rank != 1) {
            throw rankMismatch(1);
        }
        return origin + Objects.checkIndex(i, n0);
    }

    final long offset(int i, int j) {
        if (rank != 2) {
            throw rankMismatch(2);
        }
        return origin + Objects.checkIndex(i, n0) * s0 + Objects.checkIndex(j, n1);
    }

    final long offset(int i, int j, int k) {
        if (rank != 3) {
            throw rankMismatch(3);
        }
        return origin + Objects.checkIndex(i, n0) * s0 + Objects.checkIndex(j, n1) * s1 + Objects.checkIndex(k, n2);
    }

    final long offset(Index idx) {
        return switch (idx.rank()) {
            case 1 -> offset(idx.get(0));
            case 2 -> offset(idx.get(0), idx.get(1));
            default -> offset(idx.get(0), idx.get(1), idx.get(2));
        };
    }

    /** Fidelity mode: the bits of the element at checked element offset {@code element}, through the model. */
    final long modelLoad(long element) {
        return cursor.load(address + element * size, size);
    }

    /** Fidelity mode: writes {@code bits} to the element at checked element offset {@code element}, through the model. */
    final void modelStore(long element, long bits) {
        cursor.store(address + element * size, size, bits);
    }

    // ---- atomics, once for every element type (C++11 orders, see CppMemoryOrder) ------------------

    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /** Byte offset of element {@code i} of a rank-1 view. */
    private long at(int i) {
        return offset(i) * size;
    }

    /** {@code atomic_load_explicit} of element {@code i}: its bits. */
    final long atomicLoadBits(int i, CppMemoryOrder order) {
        long o = at(i);
        if (cursor != null) {
            return atomicInModel(o, size, AtomicOp.LOAD, 0, 0, loadOrder(order));
        }
        return switch (order) {
            case RELAXED -> size == 4 ? (int) INT.getOpaque(segment, o) : (long) LONG.getOpaque(segment, o);
            case CONSUME, ACQUIRE -> size == 4 ? (int) INT.getAcquire(segment, o) : (long) LONG.getAcquire(segment, o);
            case SEQ_CST -> size == 4 ? (int) INT.getVolatile(segment, o) : (long) LONG.getVolatile(segment, o);
            default -> throw new IllegalArgumentException("an atomic load cannot be " + order);
        };
    }

    /** {@code atomic_store_explicit} of {@code bits} to element {@code i}. */
    final void atomicStoreBits(int i, long bits, CppMemoryOrder order) {
        long o = at(i);
        if (cursor != null) {
            atomicInModel(o, size, AtomicOp.STORE, bits, 0, storeOrder(order));
            return;
        }
        switch (order) {
            case RELAXED -> {
                if (size == 4) {
                    INT.setOpaque(segment, o, (int) bits);
                } else {
                    LONG.setOpaque(segment, o, bits);
                }
            }
            case RELEASE -> {
                if (size == 4) {
                    INT.setRelease(segment, o, (int) bits);
                } else {
                    LONG.setRelease(segment, o, bits);
                }
            }
            case SEQ_CST -> {
                if (size == 4) {
                    INT.setVolatile(segment, o, (int) bits);
                } else {
                    LONG.setVolatile(segment, o, bits);
                }
            }
            default -> throw new IllegalArgumentException("an atomic store cannot be " + order);
        }
    }

    /** {@code atomic_fetch_add_explicit} on element {@code i}; returns the previous bits. */
    final long atomicFetchAddBits(int i, long delta, CppMemoryOrder order) {
        long o = at(i);
        if (cursor != null) {
            return atomicInModel(o, size, AtomicOp.ADD, delta, 0, order);
        }
        if (size == 4) {
            return switch (order) {
                case RELAXED, CONSUME, ACQUIRE -> (int) INT.getAndAddAcquire(segment, o, (int) delta);
                case RELEASE -> (int) INT.getAndAddRelease(segment, o, (int) delta);
                default -> (int) INT.getAndAdd(segment, o, (int) delta);
            };
        }
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (long) LONG.getAndAddAcquire(segment, o, delta);
            case RELEASE -> (long) LONG.getAndAddRelease(segment, o, delta);
            default -> (long) LONG.getAndAdd(segment, o, delta);
        };
    }

    /** {@code atomic_fetch_and_explicit} on element {@code i}; returns the previous bits. */
    final long atomicFetchAndBits(int i, long mask, CppMemoryOrder order) {
        long o = at(i);
        if (cursor != null) {
            return atomicInModel(o, size, AtomicOp.AND, mask, 0, order);
        }
        if (size == 4) {
            return switch (order) {
                case RELAXED, CONSUME, ACQUIRE -> (int) INT.getAndBitwiseAndAcquire(segment, o, (int) mask);
                case RELEASE -> (int) INT.getAndBitwiseAndRelease(segment, o, (int) mask);
                default -> (int) INT.getAndBitwiseAnd(segment, o, (int) mask);
            };
        }
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (long) LONG.getAndBitwiseAndAcquire(segment, o, mask);
            case RELEASE -> (long) LONG.getAndBitwiseAndRelease(segment, o, mask);
            default -> (long) LONG.getAndBitwiseAnd(segment, o, mask);
        };
    }

    /** {@code atomic_fetch_or_explicit} on element {@code i}; returns the previous bits. */
    final long atomicFetchOrBits(int i, long mask, CppMemoryOrder order) {
        long o = at(i);
        if (cursor != null) {
            return atomicInModel(o, size, AtomicOp.OR, mask, 0, order);
        }
        if (size == 4) {
            return switch (order) {
                case RELAXED, CONSUME, ACQUIRE -> (int) INT.getAndBitwiseOrAcquire(segment, o, (int) mask);
                case RELEASE -> (int) INT.getAndBitwiseOrRelease(segment, o, (int) mask);
                default -> (int) INT.getAndBitwiseOr(segment, o, (int) mask);
            };
        }
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (long) LONG.getAndBitwiseOrAcquire(segment, o, mask);
            case RELEASE -> (long) LONG.getAndBitwiseOrRelease(segment, o, mask);
            default -> (long) LONG.getAndBitwiseOr(segment, o, mask);
        };
    }

    /** {@code atomic_fetch_xor_explicit} on element {@code i}; returns the previous bits. */
    final long atomicFetchXorBits(int i, long mask, CppMemoryOrder order) {
        long o = at(i);
        if (cursor != null) {
            return atomicInModel(o, size, AtomicOp.XOR, mask, 0, order);
        }
        if (size == 4) {
            return switch (order) {
                case RELAXED, CONSUME, ACQUIRE -> (int) INT.getAndBitwiseXorAcquire(segment, o, (int) mask);
                case RELEASE -> (int) INT.getAndBitwiseXorRelease(segment, o, (int) mask);
                default -> (int) INT.getAndBitwiseXor(segment, o, (int) mask);
            };
        }
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (long) LONG.getAndBitwiseXorAcquire(segment, o, mask);
            case RELEASE -> (long) LONG.getAndBitwiseXorRelease(segment, o, mask);
            default -> (long) LONG.getAndBitwiseXor(segment, o, mask);
        };
    }

    /** {@code atomic_exchange_explicit} on element {@code i}; returns the previous bits. */
    final long atomicExchangeBits(int i, long bits, CppMemoryOrder order) {
        long o = at(i);
        if (cursor != null) {
            return atomicInModel(o, size, AtomicOp.EXCHANGE, bits, 0, order);
        }
        if (size == 4) {
            return switch (order) {
                case RELAXED, CONSUME, ACQUIRE -> (int) INT.getAndSetAcquire(segment, o, (int) bits);
                case RELEASE -> (int) INT.getAndSetRelease(segment, o, (int) bits);
                default -> (int) INT.getAndSet(segment, o, (int) bits);
            };
        }
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (long) LONG.getAndSetAcquire(segment, o, bits);
            case RELEASE -> (long) LONG.getAndSetRelease(segment, o, bits);
            default -> (long) LONG.getAndSet(segment, o, bits);
        };
    }

    /** {@code atomic_compare_exchange_strong_explicit} on element {@code i}; returns the bits found. */
    final long atomicCompareExchangeBits(int i, long expected, long desired, CppMemoryOrder order) {
        long o = at(i);
        if (cursor != null) {
            return atomicInModel(o, size, AtomicOp.COMPARE_EXCHANGE, expected, desired, order);
        }
        if (size == 4) {
            int e = (int) expected;
            int d = (int) desired;
            return switch (order) {
                case RELAXED, CONSUME, ACQUIRE -> (int) INT.compareAndExchangeAcquire(segment, o, e, d);
                case RELEASE -> (int) INT.compareAndExchangeRelease(segment, o, e, d);
                default -> (int) INT.compareAndExchange(segment, o, e, d);
            };
        }
        return switch (order) {
            case RELAXED, CONSUME, ACQUIRE -> (long) LONG.compareAndExchangeAcquire(segment, o, expected, desired);
            case RELEASE -> (long) LONG.compareAndExchangeRelease(segment, o, expected, desired);
            default -> (long) LONG.compareAndExchange(segment, o, expected, desired);
        };
    }

    /**
     * {@code atomic_fetch_max_explicit} ({@code max}) or {@code atomic_fetch_min_explicit} on the
     * signed integer element {@code i}: a compare-and-set loop; returns the previous value.
     */
    final long atomicFetchExtremeBits(int i, long value, boolean max, CppMemoryOrder order) {
        long o = at(i);
        if (cursor != null) {
            return atomicInModel(o, size, max ? AtomicOp.MAX : AtomicOp.MIN, value, 0, order);
        }
        long seen = opaqueBits(o);
        while ((max ? seen < value : seen > value) && !casWeak(o, seen, value, order)) {
            seen = opaqueBits(o);
        }
        return seen;
    }

    /**
     * {@code atomic_fetch_add_explicit} of a floating-point {@code delta} to element {@code i}
     * (float bits when the element has 4 bytes, double bits when 8): a compare-and-set loop on
     * the bits, correct on every kind of memory; returns the previous bits.
     */
    final long atomicFetchAddFloatingBits(int i, double delta, CppMemoryOrder order) {
        long o = at(i);
        if (cursor != null) {
            long d = size == 4 ? Float.floatToRawIntBits((float) delta) : Double.doubleToRawLongBits(delta);
            return atomicInModel(o, size, AtomicOp.FLOAT_ADD, d, 0, order);
        }
        while (true) {
            long seen = opaqueBits(o);
            long next = size == 4 ? Float.floatToRawIntBits(Float.intBitsToFloat((int) seen) + (float) delta)
                    : Double.doubleToRawLongBits(Double.longBitsToDouble(seen) + delta);
            if (casWeak(o, seen, next, order)) {
                return seen;
            }
        }
    }

    private long opaqueBits(long o) {
        return size == 4 ? (int) INT.getOpaque(segment, o) : (long) LONG.getOpaque(segment, o);
    }

    private boolean casWeak(long o, long expected, long desired, CppMemoryOrder order) {
        if (size == 4) {
            int e = (int) expected;
            int d = (int) desired;
            return switch (order) {
                case RELAXED -> INT.weakCompareAndSetPlain(segment, o, e, d);
                case CONSUME, ACQUIRE -> INT.weakCompareAndSetAcquire(segment, o, e, d);
                case RELEASE -> INT.weakCompareAndSetRelease(segment, o, e, d);
                default -> INT.weakCompareAndSet(segment, o, e, d);
            };
        }
        return switch (order) {
            case RELAXED -> LONG.weakCompareAndSetPlain(segment, o, expected, desired);
            case CONSUME, ACQUIRE -> LONG.weakCompareAndSetAcquire(segment, o, expected, desired);
            case RELEASE -> LONG.weakCompareAndSetRelease(segment, o, expected, desired);
            default -> LONG.weakCompareAndSet(segment, o, expected, desired);
        };
    }

    /**
     * Fidelity mode: C++ atomic {@code op} on the {@code size}-byte element at byte {@code offset}
     * of the segment, at system scope, with {@code order}'s release and acquire.
     */
    final long atomicInModel(long offset, int size, AtomicOp op, long x, long y, CppMemoryOrder order) {
        long at = address + offset;
        if ((at & (size - 1)) != 0) {
            throw new IllegalArgumentException(String.format("atomic access at 0x%x is not aligned to %d bytes", at, size));
        }
        return access.atomic(allocation, at, size, op, x, y, order.hsaOrder(), MemoryScope.SYSTEM);
    }

    /** {@code order}, after checking that an atomic load may use it. */
    static CppMemoryOrder loadOrder(CppMemoryOrder order) {
        if (!order.validForLoad()) {
            throw new IllegalArgumentException("an atomic load cannot be " + order);
        }
        return order;
    }

    /** {@code order}, after checking that an atomic store may use it. */
    static CppMemoryOrder storeOrder(CppMemoryOrder order) {
        if (!order.validForStore()) {
            throw new IllegalArgumentException("an atomic store cannot be " + order);
        }
        return order;
    }

    /** Element offset and checked extent of a section at {@code from} of shape {@code ext}. */
    final long sectionOrigin(Index from, Extent ext) {
        if (from.rank() != rank || ext.rank() != rank) {
            throw new IllegalArgumentException("section " + from + " " + ext + " does not have the rank of " + extent);
        }
        for (int d = 0; d < rank; d++) {
            long end = (long) from.get(d) + ext.get(d);
            if (from.get(d) < 0 || end > extent.get(d)) {
                throw new IndexOutOfBoundsException("section " + from + " " + ext + " leaves " + extent);
            }
        }
        long o = origin + from.get(0) * s0;
        if (rank > 1) {
            o += from.get(1) * (rank == 2 ? 1 : s1);
        }
        if (rank > 2) {
            o += from.get(2);
        }
        return o;
    }

    private IllegalArgumentException rankMismatch(int used) {
        return new IllegalArgumentException(used + " coordinates used on a rank-" + rank + " view");
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + extent + String.format(" at 0x%x]", address + origin * elementSize());
    }
}

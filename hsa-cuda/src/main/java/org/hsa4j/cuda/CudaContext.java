package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The primary CUDA context of one device, and the one place it is recreated.
 *
 * <p>A kernel fault (illegal address, trap, ...) is sticky: every later call in the context returns
 * the same error. The only way on is to destroy the context, which also destroys its modules,
 * streams, events and memory. So the context has a <i>generation</i>: every CUDA call runs under
 * the read lock of {@link #lock()} with the context current; {@link #recover} takes the write lock,
 * resets the primary context ({@code cuDevicePrimaryCtxReset_v2}), retains the new one and bumps
 * the generation. Whoever holds a handle made in an older generation (a module, a stream, a
 * buffer) knows it is gone by comparing generations, and modules load themselves again from the
 * bytes they kept.
 */
final class CudaContext {
    private final CudaDriver driver;
    private final int device;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private volatile MemorySegment context;
    private volatile int generation;
    private boolean closed;

    CudaContext(CudaDriver driver, int ordinal) {
        this.driver = driver;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            MemorySegment dev = a.allocate(java.lang.foreign.ValueLayout.JAVA_INT);
            driver.check(driver.cuDeviceGet(dev, ordinal), "cuDeviceGet");
            this.device = dev.get(java.lang.foreign.ValueLayout.JAVA_INT, 0);
            driver.check(driver.cuDevicePrimaryCtxRetain(out, device), "cuDevicePrimaryCtxRetain");
            this.context = out.get(ADDRESS, 0);
        }
    }

    /** The driver. */
    CudaDriver driver() {
        return driver;
    }

    /** The lock whose read side every CUDA call holds and whose write side {@link #recover} takes. */
    ReentrantReadWriteLock lock() {
        return lock;
    }

    /** The generation: bumped by every recovery. */
    int generation() {
        return generation;
    }

    /** Makes the context current on the calling thread; call with the read lock held. */
    void makeCurrent() {
        driver.check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
    }

    /** Takes the read lock and makes the context current; pair with {@link #exit()}. */
    void enter() {
        lock.readLock().lock();
        try {
            if (closed) {
                throw new org.hsa4j.status.HsaException(org.hsa4j.status.HsaStatus.NOT_INITIALIZED,
                        "the CUDA agent has been closed");
            }
            makeCurrent();
        } catch (RuntimeException e) {
            lock.readLock().unlock();
            throw e;
        }
    }

    /** Releases the read lock. */
    void exit() {
        lock.readLock().unlock();
    }

    /**
     * Recreates the context after a sticky error seen in generation {@code seen}: false when
     * another thread already did (or the context is closed). Must be called without the read lock.
     *
     * @throws HsaException FATAL when CUDA refuses a new context (the context is then closed for good)
     */
    boolean recover(int seen) {
        lock.writeLock().lock();
        try {
            if (closed || generation != seen) {
                return false;
            }
            // the release and reset report the sticky error again on some drivers: carry on regardless
            driver.cuDevicePrimaryCtxRelease(device);
            driver.cuDevicePrimaryCtxReset(device);
            try (Arena a = Arena.ofConfined()) {
                MemorySegment out = a.allocate(ADDRESS);
                int rc = driver.cuDevicePrimaryCtxRetain(out, device);
                if (rc != 0) {
                    // CUDA documents sticky errors (an illegal address, say) as unrecoverable within
                    // the process: nothing more can run on this device until the process restarts
                    closed = true;
                    throw new HsaException(HsaStatus.FATAL, "the device's context cannot be recreated after a "
                            + "sticky error (cuDevicePrimaryCtxRetain: " + driver.errorName(rc) + " (" + rc
                            + ")); CUDA needs a new process to use this device again");
                }
                context = out.get(ADDRESS, 0);
            }
            generation++;
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Releases the primary context, once. */
    void close() {
        lock.writeLock().lock();
        try {
            if (!closed) {
                closed = true;
                driver.cuDevicePrimaryCtxRelease(device);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }
}

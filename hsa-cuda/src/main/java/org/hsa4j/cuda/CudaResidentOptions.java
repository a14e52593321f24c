package org.hsa4j.cuda;

import java.util.concurrent.TimeUnit;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * How a GPU-resident queue's processor grid behaves ({@link CudaAgent#createResidentQueue}).
 *
 * @param idleNanos     how long the grid finds the queue empty (or a barrier waiting) before it parks,
 *                      ending and holding no SM until the doorbell rings
 * @param maxBlocks     blocks of the grid (256 threads each), at most what fits co-resident; 0 for
 *                      one per SM, which leaves room beside it for other queues' kernels
 * @param sleepMaxNanos the longest nap of the grid's idle polling (after a 50 us spin)
 */
public record CudaResidentOptions(long idleNanos, int maxBlocks, long sleepMaxNanos) {
    /** 20 ms idle before parking, one block per SM, naps up to 20 us. */
    public static final CudaResidentOptions DEFAULTS = new CudaResidentOptions(TimeUnit.MILLISECONDS.toNanos(20), 0, 20_000);

    /** Checks the ranges. */
    public CudaResidentOptions {
        if (idleNanos < 0 || idleNanos > TimeUnit.SECONDS.toNanos(60)) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "idle period " + idleNanos + " ns is outside 0..60 s");
        }
        if (maxBlocks < 0) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "maxBlocks " + maxBlocks + " is negative");
        }
        if (sleepMaxNanos < 0 || sleepMaxNanos > 1_000_000) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "longest nap " + sleepMaxNanos + " ns is outside 0..1 ms");
        }
    }

    /** These options with idle period {@code nanos}. */
    public CudaResidentOptions withIdleNanos(long nanos) {
        return new CudaResidentOptions(nanos, maxBlocks, sleepMaxNanos);
    }

    /** These options with {@code blocks} blocks (0: one per SM). */
    public CudaResidentOptions withMaxBlocks(int blocks) {
        return new CudaResidentOptions(idleNanos, blocks, sleepMaxNanos);
    }
}

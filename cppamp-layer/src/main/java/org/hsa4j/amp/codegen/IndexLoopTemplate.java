package org.hsa4j.amp.codegen;

import org.hsa4j.amp.Index;
import org.hsa4j.amp.IndexKernel;

/**
 * The loop every kernel class gets a private copy of. Never instantiated as such: {@link IndexLoops}
 * defines its class file again as a hidden class per kernel class. The kernel calls below are then
 * each seen by exactly one kernel class, so the JIT inlines the kernel into the loop.
 */
final class IndexLoopTemplate implements IndexLoop {
    @Override
    public void run(IndexKernel kernel, int rank, int d1, int d2, long from, long to) {
        if (rank == 1) {
            run1(kernel, (int) from, (int) to);
        } else if (rank == 2) {
            run2(kernel, d1, from, to);
        } else {
            run3(kernel, d1, d2, from, to);
        }
    }

    private static void run1(IndexKernel kernel, int from, int to) {
        for (int i = from; i < to; i++) {
            kernel.run(new Index(i));
        }
    }

    private static void run2(IndexKernel kernel, int cols, long from, long to) {
        int row = (int) (from / cols);
        int col = (int) (from % cols);
        long left = to - from;
        while (left > 0) {
            int end = (int) Math.min(cols, col + left);
            for (int j = col; j < end; j++) {
                kernel.run(new Index(row, j));
            }
            left -= end - col;
            col = 0;
            row++;
        }
    }

    private static void run3(IndexKernel kernel, int d1, int d2, long from, long to) {
        long plane = (long) d1 * d2;
        int i = (int) (from / plane);
        long rest = from % plane;
        int j = (int) (rest / d2);
        int k = (int) (rest % d2);
        long left = to - from;
        while (left > 0) {
            int end = (int) Math.min(d2, k + left);
            for (int l = k; l < end; l++) {
                kernel.run(new Index(i, j, l));
            }
            left -= end - k;
            k = 0;
            if (++j == d1) {
                j = 0;
                i++;
            }
        }
    }
}

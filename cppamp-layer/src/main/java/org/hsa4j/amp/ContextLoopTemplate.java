package org.hsa4j.amp;

/**
 * The loop every context-kernel class gets a private copy of ({@link ContextLoops}); the same
 * loops as {@code codegen.IndexLoopTemplate}, moving the context along. Never instantiated as such.
 */
final class ContextLoopTemplate implements ContextLoop {
    @Override
    public void run(ContextKernel kernel, KernelContext ctx, int rank, int d1, int d2, long from, long to) {
        if (rank == 1) {
            run1(kernel, ctx, (int) from, (int) to);
        } else if (rank == 2) {
            run2(kernel, ctx, d1, from, to);
        } else {
            run3(kernel, ctx, d1, d2, from, to);
        }
    }

    private static void run1(ContextKernel kernel, KernelContext ctx, int from, int to) {
        for (int i = from; i < to; i++) {
            ctx.position = i;
            kernel.run(new Index(i), ctx);
        }
    }

    private static void run2(ContextKernel kernel, KernelContext ctx, int cols, long from, long to) {
        int row = (int) (from / cols);
        int col = (int) (from % cols);
        long position = from;
        while (position < to) {
            int end = (int) Math.min(cols, col + (to - position));
            for (int j = col; j < end; j++) {
                ctx.position = position++;
                kernel.run(new Index(row, j), ctx);
            }
            col = 0;
            row++;
        }
    }

    private static void run3(ContextKernel kernel, KernelContext ctx, int d1, int d2, long from, long to) {
        long plane = (long) d1 * d2;
        int i = (int) (from / plane);
        long rest = from % plane;
        int j = (int) (rest / d2);
        int k = (int) (rest % d2);
        long position = from;
        while (position < to) {
            int end = (int) Math.min(d2, k + (to - position));
            for (int l = k; l < end; l++) {
                ctx.position = position++;
                kernel.run(new Index(i, j, l), ctx);
            }
            k = 0;
            if (++j == d1) {
                j = 0;
                i++;
            }
        }
    }
}

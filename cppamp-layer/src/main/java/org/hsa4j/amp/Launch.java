package org.hsa4j.amp;

import org.hsa4j.amp.codegen.IndexLoop;

/**
 * One parallelForEach in flight: the Java closure and what the trampoline needs to run it. It sits
 * in its view's launch table from submission until its dispatch completes, and nothing else
 * references it, so the captured values die with the dispatch.
 */
final class Launch {
    /** How the trampoline runs it. */
    enum Kind {
        /** Contiguous ranges of an extent through the kernel's own loop copy. */
        UNTILED,
        /** Whole tiles through a kernel compiled to work-item loops. */
        TILE_LOOPS,
        /** One work-item per call, barriers as the runtime's continuations. */
        TILE_CONTINUATIONS
    }

    final Kind kind;
    final Object description;
    final IndexKernel kernel;
    final IndexLoop loop;
    /** A context kernel and its loop copy, or null: then {@link #kernel} runs. */
    final ContextKernel contextKernel;
    final ContextLoop contextLoop;
    /** Where the launch runs: what a context kernel's {@link KernelContext} names. */
    final Accelerator accelerator;
    final int rank;
    final int d1;
    final int d2;
    final long total;
    final long chunk;
    final TiledKernel tiledKernel;
    final TileProgram program;
    final int[] tile;
    final int tileSize;
    long generation;
    /** Set by {@link CompletionFuture#cancel}: ranges and whole tiles not yet started are skipped. */
    volatile boolean cancelled;

    private Launch(Kind kind, Object description, IndexKernel kernel, IndexLoop loop, Extent extent, long chunk,
                   TiledKernel tiledKernel, TileProgram program, int[] tile) {
        this(kind, description, kernel, loop, null, null, null, extent, chunk, tiledKernel, program, tile);
    }

    private Launch(Kind kind, Object description, IndexKernel kernel, IndexLoop loop, ContextKernel contextKernel,
                   ContextLoop contextLoop, Accelerator accelerator, Extent extent, long chunk,
                   TiledKernel tiledKernel, TileProgram program, int[] tile) {
        this.kind = kind;
        this.description = description;
        this.kernel = kernel;
        this.loop = loop;
        this.contextKernel = contextKernel;
        this.contextLoop = contextLoop;
        this.accelerator = accelerator;
        this.rank = extent.rank();
        this.d1 = rank > 1 ? extent.get(1) : 1;
        this.d2 = rank > 2 ? extent.get(2) : 1;
        this.total = extent.size();
        this.chunk = chunk;
        this.tiledKernel = tiledKernel;
        this.program = program;
        this.tile = tile;
        int s = 1;
        if (tile != null) {
            for (int t : tile) {
                s *= t;
            }
        }
        this.tileSize = s;
    }

    static Launch untiled(Object description, Extent extent, IndexKernel kernel, IndexLoop loop, long chunk) {
        return new Launch(Kind.UNTILED, description, kernel, loop, extent, chunk, null, null, null);
    }

    static Launch untiled(Object description, Extent extent, ContextKernel kernel, Accelerator accelerator, long chunk) {
        return new Launch(Kind.UNTILED, description, null, null, kernel, ContextLoops.forKernelClass(kernel.getClass()),
                accelerator, extent, chunk, null, null, null);
    }

    static Launch tiled(Object description, TiledExtent tiled, TiledKernel kernel, TileProgram program) {
        return new Launch(program != null ? Kind.TILE_LOOPS : Kind.TILE_CONTINUATIONS, description, null, null,
                tiled.extent(), 0, kernel, program, tiled.tileDims());
    }

    @Override
    public String toString() {
        return description.toString();
    }
}

package org.hsa4j.amp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The layer's three kernel objects, defined once per {@link Amp} in one executable. Every
 * parallelForEach dispatches one of them; the kernarg ({@link LaunchKernarg}) says which launch
 * (Java closure) to run, so no kernel object is ever defined per call.
 *
 * <ul>
 * <li>{@code amp_untiled}: the packet's grid counts contiguous ranges of the extent (one per
 *     work-item, workgroups of 1); each call runs one range through the kernel's loop copy.</li>
 * <li>{@code amp_tiled_loops}: grid = extent, workgroup = tile. The runtime calls it per
 *     work-item; the tile's first work-item runs the whole tile through the compiled work-item
 *     loops and the others return at once.</li>
 * <li>{@code amp_tiled_continuations}: the same packet shape with the barriers flag, for a kernel
 *     the tile compiler leaves alone: the runtime runs each work-item on its barrier strategy (a
 *     virtual thread by default, a JDK continuation with {@code HSA4J_BARRIERS=continuations}) and
 *     a tile barrier is its workgroup barrier.</li>
 * </ul>
 * In the runtime's fidelity mode every tiled launch takes {@code amp_tiled_continuations}, compiled
 * or not: there each work-item is one of the runtime's, so the runtime's last-first order and
 * group-memory race detector see every tile_static access (issue 21 part 4); the compiled loops
 * are normal mode's speed-up.
 */
final class Trampolines implements AutoCloseable {
    static final String UNTILED = "amp_untiled";
    static final String TILE_LOOPS = "amp_tiled_loops";
    static final String TILE_CONTINUATIONS = "amp_tiled_continuations";

    private static final TileBarrier LOOP_BARRIER = new TileBarrier(null);

    private final Amp amp;
    private final Executable executable;
    final long untiled;
    final long tileLoops;
    final long tileContinuations;
    /** True in fidelity mode: tiled launches never take the compiled loops. */
    private final boolean fidelity;

    Trampolines(Amp amp, HsaRuntime runtime) {
        this.amp = amp;
        KernelDescriptor plain = KernelDescriptor.withKernarg(LaunchKernarg.BYTES);
        executable = runtime.createExecutable()
                .define(UNTILED, plain, this::runUntiled)
                .define(TILE_LOOPS, plain, this::runTileLoops)
                .define(TILE_CONTINUATIONS, plain.withBarriers(), this::runTileContinuation)
                .freeze();
        untiled = executable.symbol(UNTILED).kernelObject();
        tileLoops = executable.symbol(TILE_LOOPS).kernelObject();
        tileContinuations = executable.symbol(TILE_CONTINUATIONS).kernelObject();
        fidelity = runtime.config().fidelity();
    }

    /** The kernel object of a tiled launch: the loops when the kernel compiled ({@code program} not null) outside fidelity mode. */
    long tiled(TileProgram program) {
        return program != null && !fidelity ? tileLoops : tileContinuations;
    }

    private Launch launchOf(WorkItem w) {
        MemorySegment k = w.kernarg();
        int view = k.get(ValueLayout.JAVA_INT, LaunchKernarg.VIEW_ID);
        int slot = k.get(ValueLayout.JAVA_INT, LaunchKernarg.SLOT);
        long generation = k.get(ValueLayout.JAVA_LONG, LaunchKernarg.GENERATION);
        Launch l = amp.launch(view, slot);
        if (l == null || l.generation != generation) {
            throw new HsaException(HsaStatus.EXCEPTION, "kernarg names launch " + view + "/" + slot + " generation "
                    + generation + ", which is not in flight");
        }
        return l;
    }

    private void runUntiled(WorkItem w) {
        Launch l = launchOf(w);
        if (l.cancelled) {
            return;
        }
        long from = w.flatGlobalId() * l.chunk;
        long to = Math.min(from + l.chunk, l.total);
        if (l.contextKernel != null) {
            l.contextLoop.run(l.contextKernel, new KernelContext(l.accelerator, w), l.rank, l.d1, l.d2, from, to);
        } else {
            l.loop.run(l.kernel, l.rank, l.d1, l.d2, from, to);
        }
    }

    private void runTileLoops(WorkItem w) {
        if (w.flatLocalId() != 0) {
            return;
        }
        Launch l = launchOf(w);
        if (l.cancelled) {
            return;
        }
        TileFrame frame = TileFrame.current();
        TiledIndex t = new TiledIndex(l.tile, LOOP_BARRIER, frame);
        place(t, w);
        frame.bind(t, l.tileSize, l.program.primSlots(), l.program.refSlots());
        try {
            l.program.runTile(t);
        } finally {
            frame.unbind();
        }
    }

    private void runTileContinuation(WorkItem w) {
        Launch l = launchOf(w);
        TiledIndex t = new TiledIndex(l.tile, new TileBarrier(w), null);
        place(t, w);
        int r = l.tile.length;
        t.placeLocal(w.localId(r - 1), r > 1 ? w.localId(r - 2) : 0, r > 2 ? w.localId(0) : 0);
        l.tiledKernel.run(t);
    }

    /** Places {@code t} on the tile of {@code w}: packet dimension x is the last C++AMP dimension. */
    private static void place(TiledIndex t, WorkItem w) {
        int r = t.rank;
        int o0 = (int) (w.groupId(r - 1) * w.workgroupSize(r - 1));
        int o1 = r > 1 ? (int) (w.groupId(r - 2) * w.workgroupSize(r - 2)) : 0;
        int o2 = r > 2 ? (int) (w.groupId(0) * w.workgroupSize(0)) : 0;
        t.placeTile(o0, o1, o2, w.groupMemory());
    }

    @Override
    public void close() {
        executable.close();
    }
}

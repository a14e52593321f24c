package org.hsa4j.consumer.modular;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.amp.Accelerator;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.IntArrayView;
import org.hsa4j.amp.TileStaticInts;
import org.hsa4j.amp.TiledExtent;
import org.hsa4j.amp.TiledKernel;
import org.hsa4j.kernel.KernelSymbol;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;

/** What a user of the library writes on the module path: an untiled and a tiled kernel, checked. */
public final class ModularConsumer {
    private ModularConsumer() {
    }

    /** c = a + b over {@code n} ints on the default accelerator; returns the wrong elements. */
    public static int vectorAdd(int n) {
        try (HsaRuntime runtime = HsaRuntime.init(); Amp amp = Amp.on(runtime)) {
            Accelerator acc = amp.defaultAccelerator();
            IntArrayView a = acc.newInts(n);
            IntArrayView b = acc.newInts(n);
            IntArrayView c = acc.newInts(n);
            for (int i = 0; i < n; i++) {
                a.set(i, i);
                b.set(i, 2 * i);
            }
            amp.parallelForEach(new Extent(n), idx -> c.set(idx.get(0), a.get(idx.get(0)) + b.get(idx.get(0)))).get();
            int wrong = 0;
            for (int i = 0; i < n; i++) {
                if (c.get(i) != 3 * i) {
                    wrong++;
                }
            }
            return wrong;
        }
    }

    /** What {@link #tileReverse} saw: wrong elements, and work-items that ran on a virtual thread. */
    public record TileResult(int wrong, int onVirtualThreads) {
    }

    /**
     * Reverses each tile of {@code n} ints through tile-static memory and a tile barrier. Compiled to
     * work-item loops, the kernel runs on the compute units' own threads; without this module's
     * lookup the tile compiler could not define its hidden class here, and it would run on virtual threads.
     */
    public static TileResult tileReverse(int n, int tile) {
        Amp.grantTileCompiler(MethodHandles.lookup());
        try (HsaRuntime runtime = HsaRuntime.init(); Amp amp = Amp.on(runtime)) {
            IntArrayView out = amp.defaultAccelerator().newInts(n);
            TiledExtent te = new Extent(n).tile(tile);
            TileStaticInts s = te.tileStaticInts(tile);
            AtomicInteger onVirtualThreads = new AtomicInteger();
            TiledKernel k = t -> {
                if (Thread.currentThread().isVirtual()) {
                    onVirtualThreads.incrementAndGet();
                }
                s.set(t, t.local(0), t.global(0));
                t.barrier().await();
                out.set(t.global(0), s.get(t, tile - 1 - t.local(0)));
            };
            amp.parallelForEach(te, k).get();
            int wrong = 0;
            for (int i = 0; i < n; i++) {
                int base = i / tile * tile;
                if (out.get(i) != base + tile - 1 - (i - base)) {
                    wrong++;
                }
            }
            return new TileResult(wrong, onVirtualThreads.get());
        }
    }

    /** An HSA code object: a class whose {@code @KernelSymbol} methods the runtime binds as kernels. */
    static final class CodeObject {
        private CodeObject() {
        }

        /** Stores kernarg 1 into the long at kernarg 0. */
        @KernelSymbol(kernargSize = 16)
        static void store(WorkItem wi) {
            wi.svm().setLong(wi.kernarg().get(ValueLayout.JAVA_LONG, 0), wi.kernarg().get(ValueLayout.JAVA_LONG, 8));
        }
    }

    /**
     * Loads {@link CodeObject} into an executable (the runtime binds its method through a lookup
     * into this module's package, which module-info opens to it), dispatches {@code store} once and
     * returns what it stored.
     */
    public static long codeObjectStore(long value) {
        try (HsaRuntime runtime = HsaRuntime.init()) {
            long kernel = runtime.createExecutable().loadCodeObject(CodeObject.class).freeze().symbol("store").kernelObject();
            Queue queue = runtime.gpuAgent().createQueue(64, QueueType.SINGLE, null);
            long out = runtime.hostMalloc(8);
            queue.dispatch(kernel, 1, 1, out, value).join();
            return runtime.svm().getLong(out);
        }
    }

    /** Prints each result and the modules that ran it; exits 1 when anything is wrong. */
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 16;
        int added = vectorAdd(n);
        TileResult tiles = tileReverse(n, 256);
        long stored = codeObjectStore(42);
        System.out.println("hsa4j modular consumer: module " + ModularConsumer.class.getModule().getName()
                + " with " + HsaRuntime.class.getModule().getName() + " and " + Amp.class.getModule().getName()
                + "; vector add of " + n + " ints, " + added + " wrong; tile reverse, " + tiles.wrong()
                + " wrong, " + tiles.onVirtualThreads() + " work-items on virtual threads; code object kernel stored "
                + stored);
        if (added != 0 || tiles.wrong() != 0 || tiles.onVirtualThreads() != 0 || stored != 42) {
            System.exit(1);
        }
    }
}

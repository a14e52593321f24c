package org.hsa4j.examples;

import static org.hsa4j.examples.KernelLaunch.arg;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.agent.Agent;
import org.hsa4j.memory.FloatView;
import org.hsa4j.memory.MemoryFaultException;
import org.hsa4j.memory.MigrationStats;
import org.hsa4j.memory.PageDescriptor;
import org.hsa4j.memory.Svm;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The ROCm seed's three managed-memory experiments as a table: a kernel touches (1) plain malloc
 * memory with XNACK off, which faults (reported, not a crash); (2) the same with XNACK on, which
 * works as the pages migrate to the GPU; (3) managed memory, which works with XNACK on (pages
 * migrate) and off (pages are accessed in place). Each row checks itself: the fault names a page
 * of the array, and where the kernel ran every element is {@code 2x + 1}.
 */
public final class ManagedMemory implements Example {
    @Override
    public String name() {
        return "managed_memory";
    }

    @Override
    public String description() {
        return "the seed's managed-memory experiments: malloc memory faults on a GPU with XNACK off, migrates with it on; "
                + "managed memory works either way";
    }

    private enum Kind { MALLOC, MANAGED }

    /** One row: what happened, and whether it is what a real MI250X does. */
    private record Row(String experiment, boolean xnack, String result, boolean right) {
    }

    @Override
    public void run(PrintStream out, boolean small) {
        int n = small ? 16 * 1024 : 1 << 20;
        int pages = PageDescriptor.pageCount(4L * n);
        Row[] rows = {
            experiment("(1) malloc memory touched by a kernel", Kind.MALLOC, false, n, pages),
            experiment("(2) malloc memory touched by a kernel", Kind.MALLOC, true, n, pages),
            experiment("(3) managed memory touched by a kernel", Kind.MANAGED, true, n, pages),
            experiment("(3) managed memory touched by a kernel", Kind.MANAGED, false, n, pages),
        };
        out.printf("managed_memory: a kernel computes x = 2x + 1 over %,d floats (%d pages of %d KiB)%n", n, pages,
                PageDescriptor.PAGE_SIZE / 1024);
        out.printf("  %-40s %-6s %-64s %s%n", "experiment", "XNACK", "result", "check");
        boolean allRight = true;
        for (Row r : rows) {
            out.printf("  %-40s %-6s %-64s %s%n", r.experiment(), r.xnack() ? "on" : "off", r.result(),
                    r.right() ? "right" : "WRONG");
            allRight &= r.right();
        }
        if (!allRight) {
            throw new AssertionError("managed_memory: a row did not behave as on the GPU");
        }
    }

    private static Row experiment(String title, Kind kind, boolean xnack, int n, int pages) {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().xnack(xnack).build())) {
            Agent gpu = rt.gpuAgent();
            long x = kind == Kind.MALLOC ? rt.systemMalloc(4L * n) : rt.managedMalloc(4L * n);
            FloatView host = rt.svm().floats(x, n);
            for (int i = 0; i < n; i++) {
                host.set(i, i);
            }
            AtomicReference<HsaException> reported = new AtomicReference<>();
            Queue queue = gpu.createQueue(64, QueueType.SINGLE, (error, q) -> reported.compareAndSet(null, error));
            try {
                KernelLaunch.run(rt, queue, wi -> {
                    Svm svm = wi.svm();
                    long at = arg(wi, 0) + 4 * wi.globalId(0);
                    svm.setFloat(at, 2 * svm.getFloat(at) + 1);
                }, n, 256, x);
            } catch (HsaException e) {
                return faulted(title, xnack, kind, rt, x, n, reported.get() != null ? reported.get() : e);
            } finally {
                queue.destroy();
            }
            MigrationStats onGpu = rt.migrationStats(gpu);
            FloatView result = rt.svm().floats(x, n);
            boolean values = true;
            for (int i = 0; i < n; i++) {
                values &= result.get(i) == 2f * i + 1;
            }
            MigrationStats back = rt.migrationStats(rt.cpuAgent());
            String outcome;
            boolean right;
            if (kind == Kind.MANAGED && !xnack) {
                outcome = String.format("works: %d pages accessed in place, %d migrated", onGpu.remoteAccesses(),
                        onGpu.faultMigrations());
                right = values && onGpu.remoteAccesses() == pages && onGpu.faultMigrations() == 0;
            } else {
                outcome = String.format("works: %d pages migrated to %s, %d back when the host reads", onGpu.faultMigrations(),
                        gpu.name(), back.faultMigrations());
                right = values && xnack && onGpu.faultMigrations() == pages && back.faultMigrations() == pages;
            }
            return new Row(title, xnack, values ? outcome : outcome + ", WRONG VALUES", right);
        }
    }

    private static Row faulted(String title, boolean xnack, Kind kind, HsaRuntime rt, long x, int n, HsaException e) {
        boolean intact = true;
        FloatView host = rt.svm().floats(x, n);
        for (int i = 0; i < n; i++) {
            intact &= host.get(i) == i;
        }
        boolean pageFault = e instanceof MemoryFaultException f && f.status() == HsaStatus.MEMORY_FAULT
                && f.address() >= x && f.address() < x + 4L * n && (f.address() - x) % PageDescriptor.PAGE_SIZE == 0;
        String where = e instanceof MemoryFaultException f
                ? "page " + (f.address() - x) / PageDescriptor.PAGE_SIZE + " of the array" : e.getMessage();
        boolean right = kind == Kind.MALLOC && !xnack && pageFault && intact
                && rt.migrationStats(rt.gpuAgent()).faults() >= 1;
        return new Row(title, xnack, "fault: " + e.status() + " at " + where + " (reported, data intact)", right);
    }
}

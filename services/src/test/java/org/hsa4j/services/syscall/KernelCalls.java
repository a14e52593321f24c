package org.hsa4j.services.syscall;

import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.function.ToLongFunction;

import org.hsa4j.kernel.WorkItem;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;

/** Syscalls made from a one-work-item kernel, for the sandbox tests. */
final class KernelCalls {
    private KernelCalls() {
    }

    /** Runs {@code body} in a one-work-item kernel; its result. */
    static long inKernel(Fixture f, ToLongFunction<WorkItem> body) {
        long out = f.rt.hostMalloc(8);
        Kernels.run(f.rt, f.queue, wi -> wi.svm().setLong(Kernels.arg(wi, 0), body.applyAsLong(wi)), 1, 1, out);
        return f.rt.svm().getLong(out);
    }

    /** Opens {@code path} read-only in a kernel and reads up to 64 bytes: the text, or "errno N". */
    static String readInKernel(Fixture f, String path) {
        Syscalls sys = f.services.syscalls();
        long buf = f.rt.hostMalloc(64);
        long n = inKernel(f, wi -> {
            long fd = sys.open(wi, path, OpenFlags.O_RDONLY, 0);
            if (fd < 0) {
                return fd;
            }
            long r = sys.read(wi, fd, buf, 64);
            sys.close(wi, fd);
            return r;
        });
        if (n < 0) {
            return "errno " + Errno.name((int) -n);
        }
        return new String(f.rt.svm().segment(buf, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }
}

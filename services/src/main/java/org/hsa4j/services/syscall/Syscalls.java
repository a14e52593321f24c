package org.hsa4j.services.syscall;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

import org.hsa4j.kernel.ServiceCaller;
import org.hsa4j.services.rpc.RpcCall;
import org.hsa4j.services.rpc.RpcClient;
import org.hsa4j.services.rpc.RpcStatus;

/**
 * Syscalls for kernels: each method makes one RPC call from the calling work-item and returns
 * what the raw Linux interface would, {@code >= 0} on success and {@code -errno} on failure (see
 * {@link Errno}). Buffers are SVM addresses the host may access (hostMalloc or fine-grained
 * memory). When no syscall service is registered the calls return {@code -ENOSYS}; when the
 * services are closed, {@code -EIO}.
 */
public final class Syscalls {
    private final RpcClient client;

    /** Syscalls through {@code client}. */
    public Syscalls(RpcClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** The client calls go through. */
    public RpcClient client() {
        return client;
    }

    private static long failure(RpcStatus status) {
        if (status == RpcStatus.ABORTED) {
            throw new DispatchAbortedException(0, "the dispatch was aborted; its syscalls are refused");
        }
        return status == RpcStatus.UNKNOWN_OPCODE ? -Errno.ENOSYS : status == RpcStatus.TIMEOUT ? -Errno.ETIMEDOUT
                : -Errno.EIO;
    }

    private long call(ServiceCaller wi, Syscall s, long... args) {
        long[] inOut = new long[8];
        System.arraycopy(args, 0, inOut, 0, args.length);
        RpcStatus status = client.invoke(wi, s.opcode(), inOut);
        return status == RpcStatus.OK ? inOut[0] : failure(status);
    }

    private long pathCall(ServiceCaller wi, Syscall s, String path, long a0, long a1) {
        byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        try (RpcCall c = client.open(wi, s.opcode(), 1L)) {
            c.args(a0, a1);
            c.sendN(bytes);
            RpcStatus status = c.finish();
            return status == RpcStatus.OK ? c.result(0) : failure(status);
        }
    }

    /** open(path, flags, mode): a new fd; flags from {@link OpenFlags}. */
    public long open(ServiceCaller wi, String path, int flags, int mode) {
        return pathCall(wi, Syscall.OPEN, path, flags, mode);
    }

    /** close(fd). */
    public long close(ServiceCaller wi, long fd) {
        return call(wi, Syscall.CLOSE, fd);
    }

    /** read(fd, buffer, count): bytes read into SVM at {@code buffer}, 0 at end of file. */
    public long read(ServiceCaller wi, long fd, long buffer, long count) {
        return call(wi, Syscall.READ, fd, buffer, count);
    }

    /** write(fd, buffer, count): bytes written from SVM at {@code buffer}. */
    public long write(ServiceCaller wi, long fd, long buffer, long count) {
        return call(wi, Syscall.WRITE, fd, buffer, count);
    }

    /** pread(fd, buffer, count, offset). */
    public long pread(ServiceCaller wi, long fd, long buffer, long count, long offset) {
        return call(wi, Syscall.PREAD, fd, buffer, count, offset);
    }

    /** pwrite(fd, buffer, count, offset). */
    public long pwrite(ServiceCaller wi, long fd, long buffer, long count, long offset) {
        return call(wi, Syscall.PWRITE, fd, buffer, count, offset);
    }

    /** lseek(fd, offset, whence): the new position; whence from {@link OpenFlags}. */
    public long lseek(ServiceCaller wi, long fd, long offset, int whence) {
        return call(wi, Syscall.LSEEK, fd, offset, whence);
    }

    /** fstat(fd, stat): fills the {@link StatLayout} record at {@code stat}. */
    public long fstat(ServiceCaller wi, long fd, long stat) {
        return call(wi, Syscall.FSTAT, fd, stat);
    }

    /** unlink(path). */
    public long unlink(ServiceCaller wi, String path) {
        return pathCall(wi, Syscall.UNLINK, path, 0, 0);
    }

    /** clock_gettime(clock, timespec): fills the {@link TimespecLayout} record at {@code timespec}. */
    public long clockGettime(ServiceCaller wi, int clock, long timespec) {
        return call(wi, Syscall.CLOCK_GETTIME, clock, timespec);
    }

    /** clock_gettime without memory: the clock in nanoseconds, or {@code -errno}. */
    public long clockNanos(ServiceCaller wi, int clock) {
        long[] inOut = {clock, 0, 0, 0, 0, 0, 0, 0};
        RpcStatus status = client.invoke(wi, Syscall.CLOCK_GETTIME.opcode(), inOut);
        if (status != RpcStatus.OK) {
            return failure(status);
        }
        return inOut[0] < 0 ? inOut[0] : inOut[1] * 1_000_000_000L + inOut[2];
    }

    /** nanosleep(nanos): returns after at least {@code nanos}; no host thread sleeps meanwhile. */
    public long nanosleep(ServiceCaller wi, long nanos) {
        return call(wi, Syscall.NANOSLEEP, nanos);
    }

    /** getpid(): the host process id. */
    public long getpid(ServiceCaller wi) {
        return call(wi, Syscall.GETPID);
    }

    /**
     * abort(code): aborts the calling dispatch. Never returns normally: throws
     * {@link DispatchAbortedException}, which fails the dispatch when it leaves the kernel; the
     * dispatch's other work-items get the same exception from their next syscall. Returns
     * {@code -EPERM} only when the policy denies it.
     */
    public long abort(ServiceCaller wi, long code) {
        long[] inOut = {code, 0, 0, 0, 0, 0, 0, 0};
        RpcStatus status = client.invoke(wi, Syscall.ABORT.opcode(), inOut);
        if (status == RpcStatus.ABORTED) {
            throw new DispatchAbortedException(code, "dispatch aborted by a work-item with code " + code);
        }
        return status == RpcStatus.OK ? inOut[0] : failure(status);
    }
}

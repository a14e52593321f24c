package org.hsa4j.services.syscall;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.hsa4j.memory.MemoryFaultException;
import org.hsa4j.memory.Svm;
import org.hsa4j.services.rpc.OpcodeRegistry;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.RpcServer;
import org.hsa4j.services.rpc.RpcStatus;
import org.hsa4j.services.rpc.ServerCall;

/**
 * The host side of the syscall service: POSIX-style file, clock and process calls on behalf of
 * kernels, with files through {@link FileChannel} and descriptors in a per-runtime {@link FdTable}.
 *
 * <p>Every call handles each lane of its call on its own (a batched call may open 64 files).
 * Result 0 of a lane is the syscall's return value: {@code >= 0} on success, {@code -errno} on
 * failure, as the raw Linux interface returns it. Buffers are SVM addresses read and written
 * through the host's view, so a buffer the host may not touch is {@code -EFAULT}, never a crash.
 * The {@link SyscallPolicy} sees every call first; a denied call does nothing and returns
 * {@code -EPERM}. open and unlink reach files through the {@link FileAccess} the policy's
 * {@link FileRoots} chose: beneath the roots, links resolved without leaving them, else
 * {@code -EPERM} (see {@link BeneathAccess} and docs/SECURITY.md).
 */
public final class SyscallService {
    /** Owner name of the syscall namespace. */
    public static final String OWNER = "hsa4j-syscall";
    /** Longest path accepted, in bytes. */
    public static final int PATH_MAX = 4096;

    /**
     * A dispatch aborted through the abort syscall.
     *
     * @param callerDispatch the dispatch's identity (kernarg address)
     * @param callerPacket   the dispatch's packet id
     * @param code           the code the kernel passed
     */
    public record AbortEvent(long callerDispatch, long callerPacket, long code) {
    }

    private final RpcServer server;
    private final FdTable fds;
    private final ScheduledExecutorService timer;
    /**
     * The policy and the file access its roots chose, swapped together.
     *
     * @param policy the policy
     * @param files  how open and unlink reach files under it
     */
    record Sandbox(SyscallPolicy policy, FileAccess files) {
        static Sandbox of(SyscallPolicy policy) {
            return new Sandbox(policy, FileAccess.of(policy.fileRoots()));
        }
    }

    private volatile Sandbox sandbox;
    private volatile Consumer<AbortEvent> abortListener;

    /** A syscall service over {@code fds}; {@code timer} answers nanosleep; aborts are reported to {@code server}. */
    public SyscallService(RpcServer server, FdTable fds, ScheduledExecutorService timer, SyscallPolicy policy) {
        this.server = Objects.requireNonNull(server, "server");
        this.fds = Objects.requireNonNull(fds, "fds");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.sandbox = Sandbox.of(Objects.requireNonNull(policy, "policy"));
        this.abortListener = e -> { };
    }

    /** Claims the syscall namespace and registers every syscall. */
    public void register(OpcodeRegistry registry) {
        registry.claimNamespace(Opcodes.SYSCALL_NAMESPACE, OWNER);
        for (Syscall s : Syscall.values()) {
            registry.register(OWNER, s.opcode(), s.mode(), call -> serve(s, call));
        }
    }

    /** The descriptor table. */
    public FdTable fds() {
        return fds;
    }

    /** Replaces the policy; calls from now on are checked against it (default roots are taken now). */
    public void setPolicy(SyscallPolicy policy) {
        this.sandbox = Sandbox.of(Objects.requireNonNull(policy, "policy"));
    }

    /** The file access of the current policy (tests reach the step hook through it). */
    FileAccess fileAccess() {
        return sandbox.files();
    }

    /** Sets who hears of aborted dispatches. */
    public void setAbortListener(Consumer<AbortEvent> listener) {
        this.abortListener = Objects.requireNonNull(listener, "listener");
    }

    private void serve(Syscall s, ServerCall call) {
        switch (s) {
            case OPEN, UNLINK -> servePaths(s, call);
            case NANOSLEEP -> nanosleep(call);
            case ABORT -> abort(call);
            default -> {
                for (long m = call.laneMask(); m != 0; m &= m - 1) {
                    int lane = Long.numberOfTrailingZeros(m);
                    call.result(lane, 0, lane(s, call, lane));
                }
            }
        }
    }

    private boolean denied(Syscall s, String path, long fd, long flags, ServerCall call) {
        return denied(sandbox.policy(), s, path, fd, flags, call);
    }

    private static boolean denied(SyscallPolicy policy, Syscall s, String path, long fd, long flags, ServerCall call) {
        return !policy.permits(new SyscallRequest(s, path, (int) Math.max(-1, Math.min(fd, Integer.MAX_VALUE)), flags,
                call.callerDispatch()));
    }

    private long lane(Syscall s, ServerCall call, int lane) {
        long a0 = call.arg(lane, 0);
        long a1 = call.arg(lane, 1);
        long a2 = call.arg(lane, 2);
        long a3 = call.arg(lane, 3);
        boolean fdCall = s != Syscall.CLOCK_GETTIME && s != Syscall.GETPID;
        if (denied(s, null, fdCall ? a0 : -1, s == Syscall.LSEEK ? a2 : s == Syscall.CLOCK_GETTIME ? a0 : 0, call)) {
            return -Errno.EPERM;
        }
        Svm svm = call.svm();
        try {
            return switch (s) {
                case CLOSE -> close(a0);
                case READ -> read(call, svm, a0, a1, a2, -1);
                case WRITE -> write(svm, a0, a1, a2, -1);
                case PREAD -> a3 < 0 ? -Errno.EINVAL : read(call, svm, a0, a1, a2, a3);
                case PWRITE -> a3 < 0 ? -Errno.EINVAL : write(svm, a0, a1, a2, a3);
                case LSEEK -> lseek(a0, a1, a2);
                case FSTAT -> fstat(svm, a0, a1);
                case CLOCK_GETTIME -> clockGettime(svm, call, lane, a0, a1);
                case GETPID -> ProcessHandle.current().pid();
                default -> -Errno.ENOSYS;
            };
        } catch (Throwable t) {
            return -errno(t);
        }
    }

    // ---- paths ----------------------------------------------------------------------------------

    private void servePaths(Syscall s, ServerCall call) {
        Sandbox sb = sandbox;
        byte[][] paths = call.recvN();
        for (long m = call.laneMask(); m != 0; m &= m - 1) {
            int lane = Long.numberOfTrailingZeros(m);
            byte[] raw = paths[lane];
            if (raw == null || raw.length == 0) {
                call.result(lane, 0, -Errno.ENOENT);
                continue;
            }
            if (raw.length > PATH_MAX) {
                call.result(lane, 0, -Errno.ENAMETOOLONG);
                continue;
            }
            String path = new String(raw, StandardCharsets.UTF_8);
            long flags = call.arg(lane, 0);
            if (denied(sb.policy(), s, path, -1, s == Syscall.OPEN ? flags : 0, call)) {
                call.result(lane, 0, -Errno.EPERM);
                continue;
            }
            try {
                if (s == Syscall.OPEN) {
                    call.result(lane, 0, open(sb.files(), path, (int) flags, (int) call.arg(lane, 1)));
                } else {
                    sb.files().unlink(path);
                    call.result(lane, 0, 0);
                }
            } catch (Throwable t) {
                call.result(lane, 0, -errno(t));
            }
        }
    }

    private long open(FileAccess files, String name, int flags, int mode) throws IOException {
        int access = flags & OpenFlags.O_ACCMODE;
        if (access == OpenFlags.O_ACCMODE) {
            return -Errno.EINVAL;
        }
        FileAccess.Opened opened = files.open(name, flags, mode);
        int fd = fds.install(new FdTable.FileEntry(opened.channel(), opened.path(), access,
                (flags & OpenFlags.O_APPEND) != 0));
        if (fd < 0) {
            opened.channel().close();
        }
        return fd;
    }

    // ---- descriptors ----------------------------------------------------------------------------

    private long close(long fd) throws IOException {
        FdTable.Entry e = fds.remove(fd);
        if (e == null) {
            return -Errno.EBADF;
        }
        if (e instanceof FdTable.FileEntry f) {
            f.channel().close();
        }
        return 0;
    }

    private long read(ServerCall call, Svm svm, long fd, long buffer, long count, long offset) throws IOException {
        FdTable.Entry e = fds.get(fd);
        if (e == null) {
            return -Errno.EBADF;
        }
        if (count < 0) {
            return -Errno.EINVAL;
        }
        if (count == 0) {
            return 0;
        }
        MemorySegment target = svm.segment(buffer, count);
        if (e instanceof FdTable.FileEntry f) {
            if (!f.readable()) {
                return -Errno.EBADF;
            }
            ByteBuffer bb = target.asByteBuffer();
            int n = offset < 0 ? f.channel().read(bb) : f.channel().read(bb, offset);
            return Math.max(n, 0);
        }
        FdTable.StreamEntry st = (FdTable.StreamEntry) e;
        if (offset >= 0) {
            return -Errno.ESPIPE;
        }
        InputStream in = st.input();
        if (in == null) {
            return -Errno.EBADF;
        }
        byte[] bytes = new byte[(int) Math.min(count, 1 << 20)];
        int n = in.read(bytes);
        if (n <= 0) {
            return 0;
        }
        // a stream read may block for long: a call that ended meanwhile (cancelled, timed out by
        // the watchdog) must not have its caller's buffer written now
        if (!call.runIfLive(() -> MemorySegment.copy(bytes, 0, target, ValueLayout.JAVA_BYTE, 0, n))) {
            return -Errno.EIO;
        }
        return n;
    }

    private long write(Svm svm, long fd, long buffer, long count, long offset) throws IOException {
        FdTable.Entry e = fds.get(fd);
        if (e == null) {
            return -Errno.EBADF;
        }
        if (count < 0) {
            return -Errno.EINVAL;
        }
        if (count == 0) {
            return 0;
        }
        MemorySegment source = svm.segment(buffer, count);
        if (e instanceof FdTable.FileEntry f) {
            if (!f.writable()) {
                return -Errno.EBADF;
            }
            ByteBuffer bb = source.asByteBuffer();
            FileChannel ch = f.channel();
            if (offset >= 0) {
                long at = offset;
                while (bb.hasRemaining()) {
                    at += ch.write(bb, at);
                }
            } else if (f.append()) {
                synchronized (f) {
                    ch.position(ch.size());
                    while (bb.hasRemaining()) {
                        ch.write(bb);
                    }
                }
            } else {
                while (bb.hasRemaining()) {
                    ch.write(bb);
                }
            }
            return count;
        }
        FdTable.StreamEntry st = (FdTable.StreamEntry) e;
        if (offset >= 0) {
            return -Errno.ESPIPE;
        }
        OutputStream out = st.output();
        if (out == null) {
            return -Errno.EBADF;
        }
        byte[] bytes = source.toArray(ValueLayout.JAVA_BYTE);
        synchronized (out) {
            out.write(bytes);
            out.flush();
        }
        return count;
    }

    private long lseek(long fd, long offset, long whence) throws IOException {
        FdTable.Entry e = fds.get(fd);
        if (e == null) {
            return -Errno.EBADF;
        }
        if (!(e instanceof FdTable.FileEntry f)) {
            return -Errno.ESPIPE;
        }
        FileChannel ch = f.channel();
        long position;
        if (whence == OpenFlags.SEEK_SET) {
            position = offset;
        } else if (whence == OpenFlags.SEEK_CUR) {
            position = ch.position() + offset;
        } else if (whence == OpenFlags.SEEK_END) {
            position = ch.size() + offset;
        } else {
            return -Errno.EINVAL;
        }
        if (position < 0) {
            return -Errno.EINVAL;
        }
        ch.position(position);
        return position;
    }

    private long fstat(Svm svm, long fd, long stat) throws IOException {
        FdTable.Entry e = fds.get(fd);
        if (e == null) {
            return -Errno.EBADF;
        }
        MemorySegment out = svm.segment(stat, StatLayout.BYTES);
        if (e instanceof FdTable.FileEntry f) {
            long size = f.channel().size();
            int mode = StatLayout.S_IFREG | 0644;
            long mtime = 0;
            long atime = 0;
            long ctime = 0;
            try {
                BasicFileAttributes attrs = Files.readAttributes(f.path(), BasicFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS);
                mtime = nanos(attrs.lastModifiedTime().toInstant());
                atime = nanos(attrs.lastAccessTime().toInstant());
                ctime = nanos(attrs.creationTime().toInstant());
                if (attrs instanceof PosixFileAttributes posix) {
                    mode = StatLayout.S_IFREG | bits(posix.permissions());
                } else if (f.path().getFileSystem().supportedFileAttributeViews().contains("posix")) {
                    mode = StatLayout.S_IFREG
                            | bits(Files.readAttributes(f.path(), PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                            .permissions());
                }
            } catch (NoSuchFileException gone) {
                // unlinked while open: the size is still right, the times are unknown
            }
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, StatLayout.SIZE, size);
            out.set(ValueLayout.JAVA_INT_UNALIGNED, StatLayout.MODE, mode);
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, StatLayout.MTIME_NANOS, mtime);
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, StatLayout.ATIME_NANOS, atime);
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, StatLayout.CTIME_NANOS, ctime);
        } else {
            out.fill((byte) 0);
            out.set(ValueLayout.JAVA_INT_UNALIGNED, StatLayout.MODE, StatLayout.S_IFCHR | 0620);
        }
        return 0;
    }

    private static long nanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    private static int bits(Set<PosixFilePermission> perms) {
        int mode = 0;
        for (PosixFilePermission p : perms) {
            mode |= 1 << (8 - p.ordinal());
        }
        return mode;
    }

    // ---- time and process -----------------------------------------------------------------------

    private static long clockGettime(Svm svm, ServerCall call, int lane, long clock, long timespec) {
        long sec;
        long nsec;
        if (clock == Clocks.CLOCK_REALTIME) {
            Instant now = Instant.now();
            sec = now.getEpochSecond();
            nsec = now.getNano();
        } else if (clock == Clocks.CLOCK_MONOTONIC) {
            long now = System.nanoTime();
            sec = Math.floorDiv(now, 1_000_000_000L);
            nsec = Math.floorMod(now, 1_000_000_000L);
        } else {
            return -Errno.EINVAL;
        }
        if (timespec != 0) {
            MemorySegment out = svm.segment(timespec, TimespecLayout.BYTES);
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, TimespecLayout.TV_SEC, sec);
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, TimespecLayout.TV_NSEC, nsec);
        }
        call.result(lane, 1, sec);
        call.result(lane, 2, nsec);
        return 0;
    }

    private void nanosleep(ServerCall call) {
        long longest = 0;
        for (long m = call.laneMask(); m != 0; m &= m - 1) {
            int lane = Long.numberOfTrailingZeros(m);
            long nanos = call.arg(lane, 0);
            if (denied(Syscall.NANOSLEEP, null, -1, 0, call)) {
                call.result(lane, 0, -Errno.EPERM);
            } else if (nanos < 0) {
                call.result(lane, 0, -Errno.EINVAL);
            } else {
                call.result(lane, 0, 0);
                longest = Math.max(longest, nanos);
            }
        }
        if (longest > 0) {
            call.defer();
            timer.schedule(() -> call.finish(RpcStatus.OK), longest, TimeUnit.NANOSECONDS);
        }
    }

    private void abort(ServerCall call) {
        int lane = call.firstLane();
        long code = call.arg(lane, 0);
        if (denied(Syscall.ABORT, null, -1, code, call)) {
            call.result(lane, 0, -Errno.EPERM);
            return;
        }
        server.abortDispatch(call.callerDispatch(), call.callerPacket());
        try {
            abortListener.accept(new AbortEvent(call.callerDispatch(), call.callerPacket(), code));
        } finally {
            call.finish(RpcStatus.ABORTED);
        }
    }

    /** The errno for what a file operation threw. */
    static int errno(Throwable t) {
        if (t instanceof ErrnoException e) {
            return e.errno();
        }
        if (t instanceof MemoryFaultException) {
            return Errno.EFAULT;
        }
        if (t instanceof NoSuchFileException) {
            return Errno.ENOENT;
        }
        if (t instanceof FileAlreadyExistsException) {
            return Errno.EEXIST;
        }
        if (t instanceof AccessDeniedException) {
            return Errno.EACCES;
        }
        if (t instanceof DirectoryNotEmptyException) {
            return Errno.ENOTEMPTY;
        }
        if (t instanceof NotDirectoryException) {
            return Errno.ENOTDIR;
        }
        if (t instanceof ClosedChannelException || t instanceof NonReadableChannelException
                || t instanceof NonWritableChannelException) {
            return Errno.EBADF;
        }
        if (t instanceof InvalidPathException || t instanceof IllegalArgumentException) {
            return Errno.EINVAL;
        }
        if (t instanceof FileSystemException fse && fse.getReason() != null) {
            String reason = fse.getReason();
            if (reason.contains("Is a directory")) {
                return Errno.EISDIR;
            }
            if (reason.contains("Not a directory")) {
                return Errno.ENOTDIR;
            }
        }
        if (t instanceof IOException io && io.getMessage() != null && io.getMessage().contains("No space left")) {
            return Errno.ENOSPC;
        }
        return Errno.EIO;
    }
}

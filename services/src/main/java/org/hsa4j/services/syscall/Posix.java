package org.hsa4j.services.syscall;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The few libc calls the file sandbox needs, through {@code java.lang.foreign} (no native code of
 * ours): {@code openat}, {@code readlinkat}, {@code unlinkat} and {@code close} on Linux x86-64
 * and AArch64, where {@code /proc/self/fd} reopens a descriptor. Each returns what the system call does, except that a failure is {@code -errno}
 * (captured right after the call) instead of -1. Elsewhere {@link #AVAILABLE} is false and the
 * sandbox refuses every path (see {@code BeneathAccess}).
 */
final class Posix {
    /** openat's dirfd meaning "the working directory". */
    static final int AT_FDCWD = -100;
    /** Resolve to a location only; needs search permission on the directory, not read. */
    static final int O_PATH = 010000000;
    /** Do not block in open (a FIFO without a writer). */
    static final int O_NONBLOCK = 04000;
    /** Close on exec. */
    static final int O_CLOEXEC = 02000000;
    /** Fail unless the file is a directory (the value differs between architectures). */
    static final int O_DIRECTORY;
    /** Fail with ELOOP when the last component is a symbolic link (differs between architectures). */
    static final int O_NOFOLLOW;
    /** Longest link target readlinkat returns here. */
    static final int LINK_MAX = 4096;

    /** True when the calls below work on this platform. */
    static final boolean AVAILABLE;

    private static final MethodHandle OPENAT;
    private static final MethodHandle READLINKAT;
    private static final MethodHandle UNLINKAT;
    private static final MethodHandle CLOSE;
    private static final StructLayout CALL_STATE;
    private static final VarHandle ERRNO;

    static {
        String arch = System.getProperty("os.arch", "");
        boolean linux = System.getProperty("os.name", "").toLowerCase().contains("linux");
        boolean x86 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm = arch.equals("aarch64");
        O_DIRECTORY = arm ? 040000 : 0200000;
        O_NOFOLLOW = arm ? 0100000 : 0400000;
        MethodHandle openat = null;
        MethodHandle readlinkat = null;
        MethodHandle unlinkat = null;
        MethodHandle close = null;
        StructLayout state = null;
        VarHandle errno = null;
        if (linux && (x86 || arm)) {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                state = Linker.Option.captureStateLayout();
                errno = state.varHandle(MemoryLayout.PathElement.groupElement("errno"));
                Linker.Option capture = Linker.Option.captureCallState("errno");
                openat = linker.downcallHandle(libc.find("openat").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                        capture, Linker.Option.firstVariadicArg(3));
                readlinkat = linker.downcallHandle(libc.find("readlinkat").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG),
                        capture);
                unlinkat = linker.downcallHandle(libc.find("unlinkat").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                                ValueLayout.JAVA_INT),
                        capture);
                close = linker.downcallHandle(libc.find("close").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            } catch (RuntimeException | LinkageError e) {
                openat = null;
            }
        }
        AVAILABLE = openat != null && Files.isDirectory(Path.of("/proc/self/fd"));
        OPENAT = openat;
        READLINKAT = readlinkat;
        UNLINKAT = unlinkat;
        CLOSE = close;
        CALL_STATE = state;
        ERRNO = errno;
    }

    private Posix() {
    }

    /** openat(dirfd, name, flags, mode): a descriptor, or {@code -errno}. */
    static int openat(int dirfd, String name, int flags, int mode) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int fd = (int) OPENAT.invokeExact(state, dirfd, arena.allocateFrom(name), flags, mode);
            return fd >= 0 ? fd : -errno(state);
        } catch (Throwable t) {
            throw new IllegalStateException("openat failed to run", t);
        }
    }

    /** readlinkat(dirfd, name): the link's target, or null with the errno in {@code errnoOut[0]}. */
    static String readlinkat(int dirfd, String name, int[] errnoOut) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            MemorySegment buf = arena.allocate(LINK_MAX);
            long n = (long) READLINKAT.invokeExact(state, dirfd, arena.allocateFrom(name), buf, (long) LINK_MAX);
            if (n < 0) {
                errnoOut[0] = errno(state);
                return null;
            }
            if (n >= LINK_MAX) {
                errnoOut[0] = Errno.ENAMETOOLONG;
                return null;
            }
            return new String(buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        } catch (Throwable t) {
            throw new IllegalStateException("readlinkat failed to run", t);
        }
    }

    /** unlinkat(dirfd, name, 0): 0, or {@code -errno}; never follows a link. */
    static int unlinkat(int dirfd, String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int r = (int) UNLINKAT.invokeExact(state, dirfd, arena.allocateFrom(name), 0);
            return r == 0 ? 0 : -errno(state);
        } catch (Throwable t) {
            throw new IllegalStateException("unlinkat failed to run", t);
        }
    }

    /** close(fd); errors are ignored (the descriptor is gone either way on Linux). */
    static void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw new IllegalStateException("close failed to run", t);
        }
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }
}

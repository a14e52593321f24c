package org.hsa4j.services.syscall;

/**
 * errno values (Linux numbering) that syscalls return negated: a result {@code < 0} is
 * {@code -errno}, as the raw Linux system call interface does.
 */
public final class Errno {
    /** Operation not permitted: the syscall policy denied the call. */
    public static final int EPERM = 1;
    /** No such file or directory. */
    public static final int ENOENT = 2;
    /** I/O error (also: the services are closed). */
    public static final int EIO = 5;
    /** Bad file descriptor. */
    public static final int EBADF = 9;
    /** Permission denied by the file system. */
    public static final int EACCES = 13;
    /** Bad address: a buffer is not SVM the host may access. */
    public static final int EFAULT = 14;
    /** File exists (O_CREAT | O_EXCL). */
    public static final int EEXIST = 17;
    /** Not a directory. */
    public static final int ENOTDIR = 20;
    /** Is a directory. */
    public static final int EISDIR = 21;
    /** Invalid argument. */
    public static final int EINVAL = 22;
    /** Too many open files. */
    public static final int EMFILE = 24;
    /** No space left on device. */
    public static final int ENOSPC = 28;
    /** Illegal seek (on a stream). */
    public static final int ESPIPE = 29;
    /** File name too long. */
    public static final int ENAMETOOLONG = 36;
    /** Function not implemented (no syscall service registered). */
    public static final int ENOSYS = 38;
    /** Too many levels of symbolic links. */
    public static final int ELOOP = 40;
    /** Directory not empty. */
    public static final int ENOTEMPTY = 39;
    /** Address already in use. */
    public static final int EADDRINUSE = 98;
    /** Connection reset by peer. */
    public static final int ECONNRESET = 104;
    /** Transport endpoint is not connected. */
    public static final int ENOTCONN = 107;
    /** Connection timed out. */
    public static final int ETIMEDOUT = 110;
    /** Connection refused. */
    public static final int ECONNREFUSED = 111;

    private Errno() {
    }

    /** The symbolic name of {@code errno}, or "E?" with the number. */
    public static String name(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EIO -> "EIO";
            case EBADF -> "EBADF";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case EEXIST -> "EEXIST";
            case ENOTDIR -> "ENOTDIR";
            case EISDIR -> "EISDIR";
            case EINVAL -> "EINVAL";
            case EMFILE -> "EMFILE";
            case ENOSPC -> "ENOSPC";
            case ESPIPE -> "ESPIPE";
            case ENAMETOOLONG -> "ENAMETOOLONG";
            case ENOSYS -> "ENOSYS";
            case ENOTEMPTY -> "ENOTEMPTY";
            case ELOOP -> "ELOOP";
            case EADDRINUSE -> "EADDRINUSE";
            case ECONNRESET -> "ECONNRESET";
            case ENOTCONN -> "ENOTCONN";
            case ETIMEDOUT -> "ETIMEDOUT";
            case ECONNREFUSED -> "ECONNREFUSED";
            default -> "E?" + errno;
        };
    }
}

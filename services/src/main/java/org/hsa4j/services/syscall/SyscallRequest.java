package org.hsa4j.services.syscall;

/**
 * What a {@link SyscallPolicy} sees of a syscall before it runs.
 *
 * @param syscall        the syscall
 * @param path           the path for open and unlink, else null
 * @param fd             the file descriptor for fd-based calls, else -1
 * @param flags          open flags, lseek whence, clock id or abort code; else 0
 * @param callerDispatch the calling dispatch's identity (kernarg address), 0 for the host
 */
public record SyscallRequest(Syscall syscall, String path, int fd, long flags, long callerDispatch) {
}

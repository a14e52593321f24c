package org.hsa4j.services.syscall;

import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.ServiceMode;

/**
 * The syscalls of the syscall service, with their opcodes in {@link Opcodes#SYSCALL_NAMESPACE}
 * and where they run: calls that may block go to the handler threads.
 */
public enum Syscall {
    /** open(path via send_n; flags, mode) -> fd. */
    OPEN(0, ServiceMode.HANDLER),
    /** close(fd) -> 0. */
    CLOSE(1, ServiceMode.HANDLER),
    /** read(fd, buffer address, count) -> bytes read, 0 at end of file. */
    READ(2, ServiceMode.HANDLER),
    /** write(fd, buffer address, count) -> bytes written. */
    WRITE(3, ServiceMode.HANDLER),
    /** pread(fd, buffer address, count, offset) -> bytes read; the file position does not move. */
    PREAD(4, ServiceMode.HANDLER),
    /** pwrite(fd, buffer address, count, offset) -> bytes written; the file position does not move. */
    PWRITE(5, ServiceMode.HANDLER),
    /** lseek(fd, offset, whence) -> new position. */
    LSEEK(6, ServiceMode.INLINE),
    /** fstat(fd, stat address) -> 0; see {@link StatLayout}. */
    FSTAT(7, ServiceMode.HANDLER),
    /** unlink(path via send_n) -> 0. */
    UNLINK(8, ServiceMode.HANDLER),
    /** clock_gettime(clock id, timespec address or 0) -> 0; results 1 and 2 hold seconds and nanoseconds. */
    CLOCK_GETTIME(9, ServiceMode.INLINE),
    /** nanosleep(nanoseconds) -> 0, answered by a timer (no thread sleeps). */
    NANOSLEEP(10, ServiceMode.INLINE),
    /** getpid() -> the host process id. */
    GETPID(11, ServiceMode.INLINE),
    /** abort(code): ends the calling dispatch; its later calls are refused. */
    ABORT(12, ServiceMode.INLINE);

    private final int number;
    private final ServiceMode mode;

    Syscall(int number, ServiceMode mode) {
        this.number = number;
        this.mode = mode;
    }

    /** The syscall's number within the namespace. */
    public int number() {
        return number;
    }

    /** The RPC opcode. */
    public int opcode() {
        return Opcodes.of(Opcodes.SYSCALL_NAMESPACE, number);
    }

    /** Where the service runs. */
    public ServiceMode mode() {
        return mode;
    }
}

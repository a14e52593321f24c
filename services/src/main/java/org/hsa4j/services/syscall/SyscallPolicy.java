package org.hsa4j.services.syscall;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;

/**
 * A sandbox hook: decides, before each syscall runs, whether it may. A denied call does nothing
 * and returns {@code -EPERM} to the work-item.
 */
@FunctionalInterface
public interface SyscallPolicy {
    /** True when {@code request} may run. */
    boolean permits(SyscallRequest request);

    /** Every call may run. */
    SyscallPolicy ALLOW_ALL = r -> true;

    /** Calls in {@code denied} are refused, all others run. */
    static SyscallPolicy deny(Set<Syscall> denied) {
        Set<Syscall> copy = Set.copyOf(denied);
        return r -> !copy.contains(r.syscall());
    }

    /** open and unlink may only name paths inside {@code directory} (after normalisation); others run. */
    static SyscallPolicy pathsUnder(Path directory) {
        Path root = Objects.requireNonNull(directory, "directory").toAbsolutePath().normalize();
        return r -> r.path() == null || Path.of(r.path()).toAbsolutePath().normalize().startsWith(root);
    }

    /** Both this policy and {@code other} must permit. */
    default SyscallPolicy and(SyscallPolicy other) {
        return r -> permits(r) && other.permits(r);
    }
}

package org.hsa4j.services.syscall;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;

/**
 * The syscall sandbox, deny-by-default for files: decides, before each syscall runs, whether it
 * may ({@link #permits}), and where open and unlink may reach ({@link #fileRoots}). A denied call
 * does nothing and returns {@code -EPERM} to the work-item; so does a path that is, or whose
 * links lead, outside every root (checked component by component as the file is opened, see
 * docs/SECURITY.md).
 *
 * <p>A policy that names no roots (a lambda, {@link #deny}) gets {@link FileRoots#DEFAULTS}: the
 * working directory and {@code java.io.tmpdir} when it is installed, or the roots of the policy it
 * is combined with by {@link #and}. Only {@link #ALLOW_ALL_UNSANDBOXED} reaches every file.
 */
@FunctionalInterface
public interface SyscallPolicy {
    /** True when {@code request} may run. */
    boolean permits(SyscallRequest request);

    /** Where open and unlink may reach; {@link FileRoots#DEFAULTS} unless a policy names others. */
    default FileRoots fileRoots() {
        return FileRoots.DEFAULTS;
    }

    /**
     * NO SANDBOX: every call runs and open and unlink reach any path the JVM may, links followed
     * anywhere. Only for kernels as trusted as the host code itself.
     */
    SyscallPolicy ALLOW_ALL_UNSANDBOXED = new SyscallPolicy() {
        @Override
        public boolean permits(SyscallRequest request) {
            return true;
        }

        @Override
        public FileRoots fileRoots() {
            return FileRoots.UNSANDBOXED;
        }

        @Override
        public String toString() {
            return "SyscallPolicy.ALLOW_ALL_UNSANDBOXED";
        }
    };

    /** The default: every call runs, files only beneath the working directory and {@code java.io.tmpdir}. */
    static SyscallPolicy defaults() {
        return pathsUnder(FileRoots.DEFAULTS);
    }

    /** Calls in {@code denied} are refused, all others run; files beneath {@link FileRoots#DEFAULTS}. */
    static SyscallPolicy deny(Set<Syscall> denied) {
        Set<Syscall> copy = Set.copyOf(denied);
        return r -> !copy.contains(r.syscall());
    }

    /** Every call runs; open and unlink reach only files beneath {@code directories} (existing directories). */
    static SyscallPolicy pathsUnder(Path... directories) {
        return pathsUnder(FileRoots.of(directories));
    }

    /** Every call runs; open and unlink reach only files beneath {@code roots}. */
    static SyscallPolicy pathsUnder(FileRoots roots) {
        Objects.requireNonNull(roots, "roots");
        return new SyscallPolicy() {
            @Override
            public boolean permits(SyscallRequest request) {
                return true;
            }

            @Override
            public FileRoots fileRoots() {
                return roots;
            }

            @Override
            public String toString() {
                return "SyscallPolicy.pathsUnder(" + roots + ")";
            }
        };
    }

    /** Both this policy and {@code other} must permit; files only where both reach. */
    default SyscallPolicy and(SyscallPolicy other) {
        SyscallPolicy self = this;
        FileRoots both = fileRoots().intersect(other.fileRoots());
        return new SyscallPolicy() {
            @Override
            public boolean permits(SyscallRequest request) {
                return self.permits(request) && other.permits(request);
            }

            @Override
            public FileRoots fileRoots() {
                return both;
            }
        };
    }
}

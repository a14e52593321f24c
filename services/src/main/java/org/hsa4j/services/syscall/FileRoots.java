package org.hsa4j.services.syscall;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The directories that open and unlink may reach: a path is served only when it starts with a
 * root and every component after it, links included, resolves without leaving that root. The
 * check is made as the file is opened, one component at a time (see docs/SECURITY.md), not by
 * looking at the path string beforehand.
 *
 * <p>A root is fixed when it is named: its real path (links in it resolved) is taken then, and a
 * request may spell it either way. {@link #UNSANDBOXED} reaches every path the JVM can.
 */
public final class FileRoots {
    /**
     * One root.
     *
     * @param named the path as named, absolute and normalised
     * @param real  its real path when it was named
     */
    record Root(Path named, Path real) {
    }

    /** No confinement at all: any path the JVM may open. Only for trusted kernels. */
    public static final FileRoots UNSANDBOXED = new FileRoots(null);

    /** No root: every open and unlink is refused. */
    public static final FileRoots NONE = new FileRoots(List.of());

    /**
     * No opinion: {@link #defaults()} taken when the policy is installed, and no narrowing when
     * intersected with other roots (what a policy that names no roots has).
     */
    public static final FileRoots DEFAULTS = new FileRoots(List.of());

    private final List<Root> roots;

    private FileRoots(List<Root> roots) {
        this.roots = roots;
    }

    /** These roots, with {@link #DEFAULTS} replaced by {@link #defaults()} as they are now. */
    public FileRoots resolved() {
        return this == DEFAULTS ? defaults() : this;
    }

    /**
     * Roots at {@code directories}, each an existing directory.
     *
     * @throws HsaException {@link HsaStatus#INVALID_ARGUMENT} when one is not a directory
     */
    public static FileRoots of(Path... directories) {
        List<Root> list = new ArrayList<>();
        for (Path d : directories) {
            Root r = root(Objects.requireNonNull(d, "directory"));
            if (r == null) {
                throw new HsaException(HsaStatus.INVALID_ARGUMENT, "file root " + d + " is not a directory");
            }
            list.add(r);
        }
        return new FileRoots(List.copyOf(list));
    }

    /** The default roots: the working directory ({@code user.dir}) and {@code java.io.tmpdir}, those that exist. */
    public static FileRoots defaults() {
        List<Root> list = new ArrayList<>();
        for (String key : new String[] {"user.dir", "java.io.tmpdir"}) {
            String value = System.getProperty(key);
            Root r = value == null ? null : root(Path.of(value));
            if (r != null) {
                list.add(r);
            }
        }
        return new FileRoots(List.copyOf(list));
    }

    private static Root root(Path directory) {
        Path named = directory.toAbsolutePath().normalize();
        try {
            Path real = named.toRealPath();
            return Files.isDirectory(real) ? new Root(named, real) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** True for {@link #UNSANDBOXED}. */
    public boolean unsandboxed() {
        return roots == null;
    }

    /** The roots' real paths (empty for {@link #UNSANDBOXED} and {@link #NONE}). */
    public List<Path> paths() {
        return roots == null ? List.of() : roots().stream().map(Root::real).toList();
    }

    List<Root> roots() {
        return resolved().roots;
    }

    /** The paths both reach: the roots of each that lie beneath a root of the other ({@link #DEFAULTS} narrows nothing). */
    public FileRoots intersect(FileRoots other) {
        if (this == DEFAULTS || other == DEFAULTS) {
            return this == DEFAULTS ? other : this;
        }
        if (unsandboxed()) {
            return other;
        }
        if (other.unsandboxed()) {
            return this;
        }
        List<Root> both = new ArrayList<>();
        for (Root r : roots) {
            if (other.roots.stream().anyMatch(o -> r.real().startsWith(o.real()))) {
                both.add(r);
            }
        }
        for (Root o : other.roots) {
            if (roots.stream().anyMatch(r -> o.real().startsWith(r.real())) && !both.contains(o)) {
                both.add(o);
            }
        }
        return new FileRoots(List.copyOf(both));
    }

    @Override
    public String toString() {
        return unsandboxed() ? "FileRoots[UNSANDBOXED]" : this == DEFAULTS ? "FileRoots[DEFAULTS]" : "FileRoots" + paths();
    }
}

package org.hsa4j.services.syscall;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Set;

/**
 * Opens and unlinks paths only beneath a {@link FileRoots} root, resolving links without ever
 * leaving it: the access of every sandboxed policy.
 *
 * <p><b>How.</b> A request path is made absolute (against {@code user.dir}, as the JVM does) and
 * must start with a root, spelled as named or as its real path; the outermost such root is
 * chosen. The walk then holds a stack of directory descriptors, the root's at the bottom, and
 * takes the remaining components one at a time:
 * <ul>
 *   <li>{@code .} is skipped; {@code ..} pops the stack, and popping the root is an escape
 *       (EPERM). The walk never opens {@code ..}, so a directory moved elsewhere cannot lead it up
 *       and out.</li>
 *   <li>an inner component is opened with {@code openat(top, name, O_PATH | O_DIRECTORY |
 *       O_NOFOLLOW)} relative to the directory on top; the kernel refuses to follow a link there
 *       (ELOOP or ENOTDIR), and the walk then reads the link with {@code readlinkat(top, name)}
 *       and puts its target's components in front of the rest: a relative target continues
 *       from {@code top}, an absolute one must start with the same root and restarts from it.
 *       At most {@link #MAX_LINKS} links are followed (then ELOOP).</li>
 *   <li>the last component is opened with {@code openat(top, name, flags | O_NOFOLLOW |
 *       O_NONBLOCK)} (or
 *       removed with {@code unlinkat(top, name, 0)}, which never follows); a link there is read
 *       and followed the same way. Only a regular file is served: a directory is EISDIR, a FIFO,
 *       socket or device EPERM (O_NONBLOCK keeps a FIFO without a writer from holding a handler
 *       thread in open).</li>
 * </ul>
 *
 * <p><b>Why it is not racy.</b> Each step is one system call on a descriptor already checked to
 * lie beneath the root, and no step follows a link inside the kernel: what a later swap of any
 * component can change is only which name the next step finds, and that name is then checked in
 * turn. There is no check-then-use gap to race (docs/SECURITY.md argues this against the
 * alternatives). The one descriptor the JVM cannot adopt is the final one, so the file is
 * reopened through {@code /proc/self/fd/N}, which the kernel resolves to the very file opened,
 * not by path, and the raw descriptor is closed.
 *
 * <p>{@link StepHook} runs before each component is opened, so tests can swap a file for a link
 * between two steps deterministically.
 */
final class BeneathAccess implements FileAccess {
    /** Most links followed in one path (Linux's limit). */
    static final int MAX_LINKS = 40;

    /** Runs before each component is opened; package-private for the tests that swap files. */
    interface StepHook {
        /** Called with the component about to be opened; {@code last} for the final one. */
        void beforeStep(String name, boolean last) throws IOException;

        /** Does nothing. */
        StepHook NONE = (name, last) -> { };
    }

    /** One step's answer for the final component: {@code >= 0} done, {@code -errno} failed. */
    @FunctionalInterface
    private interface FinalStep {
        int apply(int dirfd, String name);
    }

    private final FileRoots roots;
    private volatile StepHook hook = StepHook.NONE;

    BeneathAccess(FileRoots roots) {
        this.roots = roots;
    }

    /** Sets the hook run before each step (tests only). */
    void stepHook(StepHook h) {
        hook = h;
    }

    @Override
    public Opened open(String name, int flags, int mode) throws IOException {
        int access = flags & OpenFlags.O_ACCMODE;
        int sys = access | (flags & (OpenFlags.O_CREAT | OpenFlags.O_EXCL));
        if (access != OpenFlags.O_RDONLY) {
            sys |= flags & OpenFlags.O_TRUNC;
        }
        int openFlags = sys | Posix.O_NOFOLLOW | Posix.O_CLOEXEC | Posix.O_NONBLOCK;
        Walk w = new Walk(name);
        try {
            int fd = w.resolve((dirfd, last) -> Posix.openat(dirfd, last, openFlags, mode & 0777));
            try {
                Path self = Path.of("/proc/self/fd/" + fd);
                if (!Files.isRegularFile(self)) {
                    throw new ErrnoException(Files.isDirectory(self) ? Errno.EISDIR : Errno.EPERM,
                            name + " is not a regular file");
                }
                Set<StandardOpenOption> options = EnumSet.noneOf(StandardOpenOption.class);
                if (access != OpenFlags.O_WRONLY) {
                    options.add(StandardOpenOption.READ);
                }
                if (access != OpenFlags.O_RDONLY) {
                    options.add(StandardOpenOption.WRITE);
                }
                return new Opened(FileChannel.open(self, options), w.realPath());
            } finally {
                Posix.close(fd);
            }
        } finally {
            w.closeAll();
        }
    }

    @Override
    public void unlink(String name) throws IOException {
        Walk w = new Walk(name);
        try {
            w.resolve(Posix::unlinkat);
        } finally {
            w.closeAll();
        }
    }

    /** One resolution: the directory stack, the names on it and the components left. */
    private final class Walk {
        private final String request;
        private FileRoots.Root root;
        private int[] fds = new int[8];
        private String[] names = new String[8];
        private int depth = -1;
        private String finalName;
        private final Deque<String> todo = new ArrayDeque<>();

        Walk(String request) throws IOException {
            this.request = request;
            Path abs = Path.of(request).toAbsolutePath();
            int prefix = Integer.MAX_VALUE;
            for (FileRoots.Root r : roots.roots()) {
                for (Path form : new Path[] {r.real(), r.named()}) {
                    if (abs.startsWith(form) && form.getNameCount() < prefix) {
                        root = r;
                        prefix = form.getNameCount();
                    }
                }
            }
            if (root == null) {
                throw new ErrnoException(Errno.EPERM, request + " is beneath no file root");
            }
            for (int i = prefix; i < abs.getNameCount(); i++) {
                todo.addLast(abs.getName(i).toString());
            }
            push(Posix.openat(Posix.AT_FDCWD, root.real().toString(),
                    Posix.O_PATH | Posix.O_DIRECTORY | Posix.O_CLOEXEC, 0), null);
        }

        /** Walks to the last component and applies {@code step} there; returns its result. */
        int resolve(FinalStep step) throws IOException {
            int links = 0;
            while (true) {
                String name = todo.pollFirst();
                if (name == null) {
                    throw new ErrnoException(Errno.EISDIR, request + " names a directory");
                }
                if (name.equals(".")) {
                    continue;
                }
                if (name.equals("..")) {
                    if (depth == 0) {
                        throw new ErrnoException(Errno.EPERM, request + " leaves its file root");
                    }
                    Posix.close(fds[depth--]);
                    continue;
                }
                boolean last = todo.isEmpty();
                hook.beforeStep(name, last);
                int r = last ? step.apply(fds[depth], name)
                        : Posix.openat(fds[depth], name, Posix.O_PATH | Posix.O_DIRECTORY | Posix.O_NOFOLLOW
                                | Posix.O_CLOEXEC, 0);
                if (r >= 0 && last) {
                    finalName = name;
                    return r;
                }
                if (r >= 0) {
                    push(r, name);
                    continue;
                }
                int errno = -r;
                if (errno != Errno.ELOOP && errno != Errno.ENOTDIR) {
                    throw new ErrnoException(errno, request);
                }
                int[] linkErrno = new int[1];
                String target = Posix.readlinkat(fds[depth], name, linkErrno);
                if (target == null) {
                    throw new ErrnoException(errno, request);
                }
                if (++links > MAX_LINKS) {
                    throw new ErrnoException(Errno.ELOOP, request);
                }
                follow(target);
            }
        }

        private void follow(String target) throws IOException {
            if (target.isEmpty()) {
                throw new ErrnoException(Errno.ENOENT, request + ": empty link");
            }
            Path t = Path.of(target);
            int from = 0;
            if (t.isAbsolute()) {
                from = -1;
                for (Path form : new Path[] {root.real(), root.named()}) {
                    if (t.startsWith(form)) {
                        from = form.getNameCount();
                        break;
                    }
                }
                if (from < 0) {
                    throw new ErrnoException(Errno.EPERM, request + " links out of its file root to " + target);
                }
                while (depth > 0) {
                    Posix.close(fds[depth--]);
                }
            }
            for (int i = t.getNameCount() - 1; i >= from; i--) {
                todo.addFirst(t.getName(i).toString());
            }
        }

        private void push(int fd, String name) throws IOException {
            if (fd < 0) {
                throw new ErrnoException(-fd, request);
            }
            if (++depth == fds.length) {
                fds = Arrays.copyOf(fds, depth * 2);
                names = Arrays.copyOf(names, depth * 2);
            }
            fds[depth] = fd;
            names[depth] = name;
        }

        /** The real path of what the last step reached. */
        Path realPath() {
            Path p = root.real();
            for (int i = 1; i <= depth; i++) {
                p = p.resolve(names[i]);
            }
            return finalName == null ? p : p.resolve(finalName);
        }

        void closeAll() {
            while (depth >= 0) {
                Posix.close(fds[depth--]);
            }
        }
    }
}

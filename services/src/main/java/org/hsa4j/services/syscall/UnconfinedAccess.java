package org.hsa4j.services.syscall;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

/** Paths as the JVM opens them, links followed anywhere: the access of {@link FileRoots#UNSANDBOXED}. */
final class UnconfinedAccess implements FileAccess {
    static final UnconfinedAccess INSTANCE = new UnconfinedAccess();

    private UnconfinedAccess() {
    }

    @Override
    public Opened open(String name, int flags, int mode) throws IOException {
        int access = flags & OpenFlags.O_ACCMODE;
        Path path = Path.of(name);
        if (Files.isDirectory(path)) {
            throw new ErrnoException(Errno.EISDIR, name);
        }
        Set<OpenOption> options = new HashSet<>();
        if (access != OpenFlags.O_WRONLY) {
            options.add(StandardOpenOption.READ);
        }
        if (access != OpenFlags.O_RDONLY) {
            options.add(StandardOpenOption.WRITE);
            if ((flags & OpenFlags.O_TRUNC) != 0) {
                options.add(StandardOpenOption.TRUNCATE_EXISTING);
            }
        }
        if ((flags & OpenFlags.O_CREAT) != 0) {
            options.add((flags & OpenFlags.O_EXCL) != 0 ? StandardOpenOption.CREATE_NEW : StandardOpenOption.CREATE);
            if (access == OpenFlags.O_RDONLY) {
                options.add(StandardOpenOption.WRITE);
            }
        }
        FileChannel channel;
        if ((flags & OpenFlags.O_CREAT) != 0 && path.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            FileAttribute<Set<PosixFilePermission>> perms = PosixFilePermissions.asFileAttribute(permissions(mode));
            channel = FileChannel.open(path, options, perms);
        } else {
            channel = FileChannel.open(path, options);
        }
        Path real = path;
        try {
            real = path.toRealPath();
        } catch (IOException gone) {
            // unlinked already: fstat will find no times
        }
        return new Opened(channel, real);
    }

    /** The permission set of the low nine bits of {@code mode}. */
    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {
                PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
                PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
                PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};
        for (int bit = 0; bit < order.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                set.add(order[bit]);
            }
        }
        return set;
    }

    @Override
    public void unlink(String name) throws IOException {
        Path path = Path.of(name);
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new ErrnoException(Errno.EISDIR, name);
        }
        Files.delete(path);
    }
}

package org.hsa4j.services.syscall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import org.hsa4j.kernel.WorkItem;
import org.hsa4j.memory.Svm;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file sandbox seen from a kernel: the default roots, and links inside a root that point out
 * of it (to files, to directories, and {@code ..} after a link).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SandboxTest {
    @TempDir
    Path dir;

    private Path root;
    private Path outside;
    private Fixture f;
    private Syscalls sys;
    private Svm host;

    @BeforeEach
    void start() throws IOException {
        root = Files.createDirectory(dir.resolve("root"));
        outside = Files.createDirectory(dir.resolve("outside"));
        Files.writeString(outside.resolve("secret"), "secret");
        Files.writeString(outside.resolve("victim"), "keep");
        f = Fixture.start();
        sys = f.services.syscalls();
        host = f.rt.svm();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private long inKernel(ToLongFunction<WorkItem> body) {
        long out = f.rt.hostMalloc(8);
        Kernels.run(f.rt, f.queue, wi -> wi.svm().setLong(Kernels.arg(wi, 0), body.applyAsLong(wi)), 1, 1, out);
        return host.getLong(out);
    }

    /** Opens {@code path} read-only in a kernel and reads up to 64 bytes: the text, or "errno N". */
    private String readInKernel(String path) {
        long buf = f.rt.hostMalloc(64);
        long n = inKernel(wi -> {
            long fd = sys.open(wi, path, OpenFlags.O_RDONLY, 0);
            if (fd < 0) {
                return fd;
            }
            long r = sys.read(wi, fd, buf, 64);
            sys.close(wi, fd);
            return r;
        });
        if (n < 0) {
            return "errno " + Errno.name((int) -n);
        }
        return new String(host.segment(buf, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    /**
     * A writable directory beneath neither default root: the working directory's parent, unless
     * the checkout itself lies in tmpdir (a clone under /tmp), then the home directory, /var/tmp or /.
     */
    private static Path outsideTheDefaultRoots() throws IOException {
        Path cwd = Path.of("").toRealPath();
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toRealPath();
        List<Path> candidates = new ArrayList<>();
        candidates.add(cwd.getParent());
        candidates.add(Path.of(System.getProperty("user.home")));
        candidates.add(Path.of("/var/tmp"));
        candidates.add(Path.of("/"));
        for (Path c : candidates) {
            if (c != null && Files.isDirectory(c) && Files.isWritable(c)) {
                Path real = c.toRealPath();
                if (!real.startsWith(cwd) && !real.startsWith(tmp)) {
                    return real;
                }
            }
        }
        throw new IllegalStateException("no writable directory outside " + cwd + " and " + tmp);
    }

    private void confineToRoot() {
        f.services.setSyscallPolicy(SyscallPolicy.pathsUnder(root));
    }

    // ---- the default roots (item 11) ------------------------------------------------------------

    @Test
    void shouldRefuseToReadAFileOutsideTheWorkingDirectoryAndTmpdirByDefault() {
        assertEquals("errno EPERM", readInKernel("/etc/passwd"));
    }

    @Test
    void shouldRefuseToCreateAFileOutsideTheWorkingDirectoryAndTmpdirByDefault() throws IOException {
        Path probe = outsideTheDefaultRoots().resolve("hsa4j-sandbox-probe-" + ProcessHandle.current().pid());
        try {
            assertEquals(-Errno.EPERM, inKernel(wi -> sys.open(wi, probe.toString(),
                    OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644)));
            assertFalse(Files.exists(probe));
        } finally {
            Files.deleteIfExists(probe);
        }
    }

    @Test
    void shouldOpenAFileInTmpdirByDefault() throws IOException {
        Files.writeString(root.resolve("in-tmp"), "tmp is a default root");
        assertEquals("tmp is a default root", readInKernel(root.resolve("in-tmp").toString()));
    }

    @Test
    void shouldReadOutsideTheRootsWhenTheUnsandboxedPolicyIsNamed() {
        f.services.setSyscallPolicy(SyscallPolicy.ALLOW_ALL_UNSANDBOXED);
        assertTrue(readInKernel("/etc/passwd").startsWith("root:"));
    }

    @Test
    void shouldRefuseEveryPathWithNoRoots() throws IOException {
        Files.writeString(root.resolve("x"), "x");
        f.services.setSyscallPolicy(SyscallPolicy.pathsUnder(FileRoots.NONE));
        assertEquals("errno EPERM", readInKernel(root.resolve("x").toString()));
    }

    @Test
    void shouldReturnEisdirForADirectoryBeneathTheRoot() throws IOException {
        Files.createDirectory(root.resolve("sub"));
        confineToRoot();
        assertEquals("errno EISDIR", readInKernel(root.resolve("sub").toString()));
        assertEquals("errno EISDIR", readInKernel(root.toString()));
        assertEquals(-Errno.EISDIR, inKernel(wi -> sys.unlink(wi, root.resolve("sub").toString())));
    }

    @Test
    void shouldRefuseAFifoBeneathTheRootWithoutBlocking() throws Exception {
        Path fifo = root.resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
        confineToRoot();
        assertEquals("errno EPERM", readInKernel(fifo.toString()));
    }

    // ---- links out of a root (item 12) ----------------------------------------------------------

    @Test
    void shouldRefuseALinkInsideTheRootToAFileOutside() throws IOException {
        Files.createSymbolicLink(root.resolve("l"), outside.resolve("secret"));
        confineToRoot();
        assertEquals("errno EPERM", readInKernel(root.resolve("l").toString()));
    }

    @Test
    void shouldNotTruncateAFileOutsideTheRootThroughALink() throws IOException {
        Files.createSymbolicLink(root.resolve("t"), outside.resolve("victim"));
        confineToRoot();
        assertEquals(-Errno.EPERM, inKernel(wi -> sys.open(wi, root.resolve("t").toString(),
                OpenFlags.O_WRONLY | OpenFlags.O_TRUNC, 0)));
        assertEquals("keep", Files.readString(outside.resolve("victim")));
    }

    @Test
    void shouldRefuseARelativeLinkThatClimbsOutOfTheRoot() throws IOException {
        Files.createSymbolicLink(root.resolve("up"), Path.of("../outside/secret"));
        confineToRoot();
        assertEquals("errno EPERM", readInKernel(root.resolve("up").toString()));
    }

    @Test
    void shouldRefuseALinkInsideTheRootToADirectoryOutside() throws IOException {
        Files.createSymbolicLink(root.resolve("d"), outside);
        confineToRoot();
        assertEquals("errno EPERM", readInKernel(root.resolve("d/secret").toString()));
    }

    @Test
    void shouldNotCreateAFileInADirectoryOutsideTheRootThroughALink() throws IOException {
        Files.createSymbolicLink(root.resolve("d"), outside);
        confineToRoot();
        assertEquals(-Errno.EPERM, inKernel(wi -> sys.open(wi, root.resolve("d/new").toString(),
                OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644)));
        assertFalse(Files.exists(outside.resolve("new")));
    }

    @Test
    void shouldRefuseDotDotAfterALinkWhenItLandsOutsideTheRoot() throws IOException {
        Files.createDirectory(outside.resolve("sub"));
        Files.createSymbolicLink(root.resolve("l"), outside.resolve("sub"));
        Files.writeString(root.resolve("secret"), "inside");
        confineToRoot();
        // lexically root/secret; physically outside/sub/.. = outside, so outside/secret
        assertEquals("errno EPERM", readInKernel(root.resolve("l/../secret").toString()));
    }

    @Test
    void shouldResolveDotDotAfterALinkInsideTheRootPhysically() throws IOException {
        Files.createDirectories(root.resolve("a/b"));
        Files.writeString(root.resolve("a/x"), "a/x");
        Files.createSymbolicLink(root.resolve("l"), Path.of("a/b"));
        confineToRoot();
        assertEquals("a/x", readInKernel(root.resolve("l/../x").toString()));
    }

    @Test
    void shouldFollowLinksThatStayInsideTheRoot() throws IOException {
        Files.createDirectories(root.resolve("data"));
        Files.writeString(root.resolve("data/file"), "inside");
        Files.createSymbolicLink(root.resolve("rel"), Path.of("data/file"));
        Files.createSymbolicLink(root.resolve("abs"), root.resolve("data/file"));
        Files.createSymbolicLink(root.resolve("dirlink"), Path.of("data"));
        confineToRoot();
        assertEquals("inside", readInKernel(root.resolve("rel").toString()));
        assertEquals("inside", readInKernel(root.resolve("abs").toString()));
        assertEquals("inside", readInKernel(root.resolve("dirlink/file").toString()));
    }

    @Test
    void shouldReturnEloopForALinkCycleInsideTheRoot() throws IOException {
        Files.createSymbolicLink(root.resolve("a"), Path.of("b"));
        Files.createSymbolicLink(root.resolve("b"), Path.of("a"));
        confineToRoot();
        assertEquals("errno ELOOP", readInKernel(root.resolve("a").toString()));
        assertEquals("errno ELOOP", readInKernel(root.resolve("a/x").toString()));
    }

    @Test
    void shouldRefuseDotDotAboveTheRoot() throws IOException {
        confineToRoot();
        assertEquals("errno EPERM", readInKernel(root + "/../outside/secret"));
    }

    @Test
    void shouldUnlinkALinkAndLeaveItsTargetOutsideTheRoot() throws IOException {
        Path link = Files.createSymbolicLink(root.resolve("u"), outside.resolve("victim"));
        confineToRoot();
        assertEquals(0, inKernel(wi -> sys.unlink(wi, link.toString())));
        assertFalse(Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertEquals("keep", Files.readString(outside.resolve("victim")));
    }

    @Test
    void shouldRefuseToUnlinkAFileOutsideTheRootThroughALinkedDirectory() throws IOException {
        Files.createSymbolicLink(root.resolve("d"), outside);
        confineToRoot();
        assertEquals(-Errno.EPERM, inKernel(wi -> sys.unlink(wi, root.resolve("d/victim").toString())));
        assertTrue(Files.exists(outside.resolve("victim")));
    }
}

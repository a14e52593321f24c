package org.hsa4j.services.syscall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.services.Fixture;
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

    @BeforeEach
    void start() throws IOException {
        root = Files.createDirectory(dir.resolve("root"));
        outside = Files.createDirectory(dir.resolve("outside"));
        Files.writeString(outside.resolve("secret"), "secret");
        Files.writeString(outside.resolve("victim"), "keep");
        f = Fixture.start();
        sys = f.services.syscalls();
    }

    @AfterEach
    void stop() {
        f.close();
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
        assertEquals("errno EPERM", KernelCalls.readInKernel(f, "/etc/passwd"));
    }

    @Test
    void shouldRefuseToCreateAFileOutsideTheWorkingDirectoryAndTmpdirByDefault() throws IOException {
        Path probe = outsideTheDefaultRoots().resolve("hsa4j-sandbox-probe-" + ProcessHandle.current().pid());
        try {
            assertEquals(-Errno.EPERM, KernelCalls.inKernel(f, wi -> sys.open(wi, probe.toString(),
                    OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644)));
            assertFalse(Files.exists(probe));
        } finally {
            Files.deleteIfExists(probe);
        }
    }

    @Test
    void shouldOpenAFileInTmpdirByDefault() throws IOException {
        Files.writeString(root.resolve("in-tmp"), "tmp is a default root");
        assertEquals("tmp is a default root", KernelCalls.readInKernel(f, root.resolve("in-tmp").toString()));
    }

    @Test
    void shouldReadOutsideTheRootsWhenTheUnsandboxedPolicyIsNamed() {
        f.services.setSyscallPolicy(SyscallPolicy.ALLOW_ALL_UNSANDBOXED);
        assertTrue(KernelCalls.readInKernel(f, "/etc/passwd").startsWith("root:"));
    }

    @Test
    void shouldRefuseEveryPathWithNoRoots() throws IOException {
        Files.writeString(root.resolve("x"), "x");
        f.services.setSyscallPolicy(SyscallPolicy.pathsUnder(FileRoots.NONE));
        assertEquals("errno EPERM", KernelCalls.readInKernel(f, root.resolve("x").toString()));
    }

    @Test
    void shouldReturnEisdirForADirectoryBeneathTheRoot() throws IOException {
        Files.createDirectory(root.resolve("sub"));
        confineToRoot();
        assertEquals("errno EISDIR", KernelCalls.readInKernel(f, root.resolve("sub").toString()));
        assertEquals("errno EISDIR", KernelCalls.readInKernel(f, root.toString()));
        assertEquals(-Errno.EISDIR, KernelCalls.inKernel(f, wi -> sys.unlink(wi, root.resolve("sub").toString())));
    }

    @Test
    void shouldRefuseAFifoBeneathTheRootWithoutBlocking() throws Exception {
        Path fifo = root.resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
        confineToRoot();
        assertEquals("errno EPERM", KernelCalls.readInKernel(f, fifo.toString()));
    }

    // ---- links out of a root (item 12) ----------------------------------------------------------

    @Test
    void shouldRefuseALinkInsideTheRootToAFileOutside() throws IOException {
        Files.createSymbolicLink(root.resolve("l"), outside.resolve("secret"));
        confineToRoot();
        assertEquals("errno EPERM", KernelCalls.readInKernel(f, root.resolve("l").toString()));
    }

    @Test
    void shouldNotTruncateAFileOutsideTheRootThroughALink() throws IOException {
        Files.createSymbolicLink(root.resolve("t"), outside.resolve("victim"));
        confineToRoot();
        assertEquals(-Errno.EPERM, KernelCalls.inKernel(f, wi -> sys.open(wi, root.resolve("t").toString(),
                OpenFlags.O_WRONLY | OpenFlags.O_TRUNC, 0)));
        assertEquals("keep", Files.readString(outside.resolve("victim")));
    }

    @Test
    void shouldRefuseARelativeLinkThatClimbsOutOfTheRoot() throws IOException {
        Files.createSymbolicLink(root.resolve("up"), Path.of("../outside/secret"));
        confineToRoot();
        assertEquals("errno EPERM", KernelCalls.readInKernel(f, root.resolve("up").toString()));
    }

    @Test
    void shouldRefuseALinkInsideTheRootToADirectoryOutside() throws IOException {
        Files.createSymbolicLink(root.resolve("d"), outside);
        confineToRoot();
        assertEquals("errno EPERM", KernelCalls.readInKernel(f, root.resolve("d/secret").toString()));
    }

    @Test
    void shouldNotCreateAFileInADirectoryOutsideTheRootThroughALink() throws IOException {
        Files.createSymbolicLink(root.resolve("d"), outside);
        confineToRoot();
        assertEquals(-Errno.EPERM, KernelCalls.inKernel(f, wi -> sys.open(wi, root.resolve("d/new").toString(),
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
        assertEquals("errno EPERM", KernelCalls.readInKernel(f, root.resolve("l/../secret").toString()));
    }

    @Test
    void shouldResolveDotDotAfterALinkInsideTheRootPhysically() throws IOException {
        Files.createDirectories(root.resolve("a/b"));
        Files.writeString(root.resolve("a/x"), "a/x");
        Files.createSymbolicLink(root.resolve("l"), Path.of("a/b"));
        confineToRoot();
        assertEquals("a/x", KernelCalls.readInKernel(f, root.resolve("l/../x").toString()));
    }

    @Test
    void shouldFollowLinksThatStayInsideTheRoot() throws IOException {
        Files.createDirectories(root.resolve("data"));
        Files.writeString(root.resolve("data/file"), "inside");
        Files.createSymbolicLink(root.resolve("rel"), Path.of("data/file"));
        Files.createSymbolicLink(root.resolve("abs"), root.resolve("data/file"));
        Files.createSymbolicLink(root.resolve("dirlink"), Path.of("data"));
        confineToRoot();
        assertEquals("inside", KernelCalls.readInKernel(f, root.resolve("rel").toString()));
        assertEquals("inside", KernelCalls.readInKernel(f, root.resolve("abs").toString()));
        assertEquals("inside", KernelCalls.readInKernel(f, root.resolve("dirlink/file").toString()));
    }

    @Test
    void shouldReturnEloopForALinkCycleInsideTheRoot() throws IOException {
        Files.createSymbolicLink(root.resolve("a"), Path.of("b"));
        Files.createSymbolicLink(root.resolve("b"), Path.of("a"));
        confineToRoot();
        assertEquals("errno ELOOP", KernelCalls.readInKernel(f, root.resolve("a").toString()));
        assertEquals("errno ELOOP", KernelCalls.readInKernel(f, root.resolve("a/x").toString()));
    }

    @Test
    void shouldRefuseDotDotAboveTheRoot() throws IOException {
        confineToRoot();
        assertEquals("errno EPERM", KernelCalls.readInKernel(f, root + "/../outside/secret"));
    }

    @Test
    void shouldUnlinkALinkAndLeaveItsTargetOutsideTheRoot() throws IOException {
        Path link = Files.createSymbolicLink(root.resolve("u"), outside.resolve("victim"));
        confineToRoot();
        assertEquals(0, KernelCalls.inKernel(f, wi -> sys.unlink(wi, link.toString())));
        assertFalse(Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertEquals("keep", Files.readString(outside.resolve("victim")));
    }

    @Test
    void shouldRefuseToUnlinkAFileOutsideTheRootThroughALinkedDirectory() throws IOException {
        Files.createSymbolicLink(root.resolve("d"), outside);
        confineToRoot();
        assertEquals(-Errno.EPERM, KernelCalls.inKernel(f, wi -> sys.unlink(wi, root.resolve("d/victim").toString())));
        assertTrue(Files.exists(outside.resolve("victim")));
    }
}

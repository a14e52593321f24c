package org.hsa4j.services.syscall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * A component swapped for a link out of the root between two steps of the resolution (the step
 * hook makes the swap happen at that exact point, no timing involved): the open never reaches
 * the outside file.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SandboxSwapTest {
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
        Files.writeString(outside.resolve("f"), "outside");
        f = Fixture.start();
        sys = f.services.syscalls();
        host = f.rt.svm();
        f.services.setSyscallPolicy(SyscallPolicy.pathsUnder(root));
    }

    @AfterEach
    void stop() {
        f.close();
    }

    /** Runs {@code swap} once, just before the component {@code name} is opened. */
    private void swapBefore(String name, IoAction swap) {
        AtomicBoolean done = new AtomicBoolean();
        ((BeneathAccess) f.services.syscallService().fileAccess()).stepHook((component, last) -> {
            if (component.equals(name) && done.compareAndSet(false, true)) {
                swap.run();
            }
        });
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private long inKernel(ToLongFunction<WorkItem> body) {
        long out = f.rt.hostMalloc(8);
        Kernels.run(f.rt, f.queue, wi -> wi.svm().setLong(Kernels.arg(wi, 0), body.applyAsLong(wi)), 1, 1, out);
        return host.getLong(out);
    }

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
        return n < 0 ? "errno " + Errno.name((int) -n)
                : new String(host.segment(buf, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    @Test
    void shouldNotTruncateTheTargetOfAFileSwappedForALinkJustBeforeItsOpen() throws IOException {
        Path file = Files.writeString(root.resolve("f"), "inside");
        swapBefore("f", () -> {
            Files.delete(file);
            Files.createSymbolicLink(file, outside.resolve("f"));
        });
        assertEquals(-Errno.EPERM, inKernel(wi -> sys.open(wi, file.toString(),
                OpenFlags.O_WRONLY | OpenFlags.O_TRUNC, 0)));
        assertEquals("outside", Files.readString(outside.resolve("f")));
    }

    @Test
    void shouldRefuseADirectorySwappedForALinkJustBeforeItIsEntered() throws IOException {
        Files.createDirectory(root.resolve("d"));
        Files.writeString(root.resolve("d/f"), "inside");
        swapBefore("d", () -> {
            Files.move(root.resolve("d"), root.resolve("d.old"));
            Files.createSymbolicLink(root.resolve("d"), outside);
        });
        assertEquals("errno EPERM", readInKernel(root.resolve("d/f").toString()));
    }

    @Test
    void shouldStayInTheDirectoryItEnteredWhenThatIsSwappedForALinkAfterwards() throws IOException {
        Files.createDirectory(root.resolve("d"));
        Files.writeString(root.resolve("d/f"), "inside");
        swapBefore("f", () -> {
            Files.move(root.resolve("d"), root.resolve("d.old"));
            Files.createSymbolicLink(root.resolve("d"), outside);
        });
        assertEquals("inside", readInKernel(root.resolve("d/f").toString()));
        assertEquals("outside", Files.readString(outside.resolve("f")));
    }

    @Test
    void shouldNotUnlinkThroughADirectorySwappedForALinkJustBeforeItIsEntered() throws IOException {
        Files.createDirectory(root.resolve("d"));
        Files.writeString(root.resolve("d/f"), "inside");
        swapBefore("d", () -> {
            Files.move(root.resolve("d"), root.resolve("d.old"));
            Files.createSymbolicLink(root.resolve("d"), outside);
        });
        assertEquals(-Errno.EPERM, inKernel(wi -> sys.unlink(wi, root.resolve("d/f").toString())));
        assertTrue(Files.exists(outside.resolve("f")));
    }
}

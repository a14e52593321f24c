package org.hsa4j.services.syscall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.hsa4j.services.Fixture;
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

    @BeforeEach
    void start() throws IOException {
        root = Files.createDirectory(dir.resolve("root"));
        outside = Files.createDirectory(dir.resolve("outside"));
        Files.writeString(outside.resolve("f"), "outside");
        f = Fixture.start();
        sys = f.services.syscalls();
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

    @Test
    void shouldNotTruncateTheTargetOfAFileSwappedForALinkJustBeforeItsOpen() throws IOException {
        Path file = Files.writeString(root.resolve("f"), "inside");
        swapBefore("f", () -> {
            Files.delete(file);
            Files.createSymbolicLink(file, outside.resolve("f"));
        });
        assertEquals(-Errno.EPERM, KernelCalls.inKernel(f, wi -> sys.open(wi, file.toString(),
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
        assertEquals("errno EPERM", KernelCalls.readInKernel(f, root.resolve("d/f").toString()));
    }

    @Test
    void shouldStayInTheDirectoryItEnteredWhenThatIsSwappedForALinkAfterwards() throws IOException {
        Files.createDirectory(root.resolve("d"));
        Files.writeString(root.resolve("d/f"), "inside");
        swapBefore("f", () -> {
            Files.move(root.resolve("d"), root.resolve("d.old"));
            Files.createSymbolicLink(root.resolve("d"), outside);
        });
        assertEquals("inside", KernelCalls.readInKernel(f, root.resolve("d/f").toString()));
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
        assertEquals(-Errno.EPERM, KernelCalls.inKernel(f, wi -> sys.unlink(wi, root.resolve("d/f").toString())));
        assertTrue(Files.exists(outside.resolve("f")));
    }
}

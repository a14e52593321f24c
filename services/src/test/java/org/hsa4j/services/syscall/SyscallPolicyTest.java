package org.hsa4j.services.syscall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.hsa4j.services.ServicesConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What each policy allows, without running a kernel. */
class SyscallPolicyTest {
    @TempDir
    Path dir;

    @Test
    void shouldConfineTheDefaultConfigurationToTheWorkingDirectoryAndTmpdir() throws IOException {
        FileRoots roots = ServicesConfig.defaults().syscallPolicy().fileRoots().resolved();
        assertFalse(roots.unsandboxed());
        assertEquals(List.of(Path.of("").toRealPath(), Path.of(System.getProperty("java.io.tmpdir")).toRealPath()),
                roots.paths());
    }

    @Test
    void shouldGiveAPolicyThatNamesNoRootsTheDefaultRoots() {
        assertSame(FileRoots.DEFAULTS, SyscallPolicy.deny(Set.of(Syscall.UNLINK)).fileRoots());
        assertSame(FileRoots.DEFAULTS, ((SyscallPolicy) r -> true).fileRoots());
    }

    @Test
    void shouldReachEveryFileOnlyWithTheUnsandboxedPolicy() {
        assertTrue(SyscallPolicy.ALLOW_ALL_UNSANDBOXED.fileRoots().unsandboxed());
        assertFalse(SyscallPolicy.defaults().fileRoots().resolved().unsandboxed());
    }

    @Test
    void shouldNarrowRootsToWhereBothPoliciesReachWhenCombined() throws IOException {
        Path inner = Files.createDirectory(dir.resolve("inner"));
        Path other = Files.createDirectory(dir.resolve("other"));
        SyscallPolicy both = SyscallPolicy.pathsUnder(dir).and(SyscallPolicy.pathsUnder(inner, other.resolve(".")));
        assertEquals(List.of(inner.toRealPath(), other.toRealPath()), both.fileRoots().paths());
        SyscallPolicy disjoint = SyscallPolicy.pathsUnder(inner).and(SyscallPolicy.pathsUnder(other));
        assertEquals(List.of(), disjoint.fileRoots().paths());
    }

    @Test
    void shouldKeepTheNamedRootsWhenCombinedWithAPolicyThatNamesNone() {
        SyscallPolicy p = SyscallPolicy.deny(Set.of(Syscall.GETPID)).and(SyscallPolicy.pathsUnder(dir));
        assertEquals(SyscallPolicy.pathsUnder(dir).fileRoots().paths(), p.fileRoots().paths());
        assertFalse(p.permits(new SyscallRequest(Syscall.GETPID, null, -1, 0, 0)));
    }

    @Test
    void shouldRejectARootThatIsNotADirectoryWithInvalidArgument() throws IOException {
        Path file = Files.writeString(dir.resolve("file"), "x");
        HsaException e = assertThrows(HsaException.class, () -> SyscallPolicy.pathsUnder(file));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        assertThrows(HsaException.class, () -> SyscallPolicy.pathsUnder(dir.resolve("missing")));
    }
}

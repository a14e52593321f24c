package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real-address SVM arena is a shared memfd mapping (issue 18 part 5's device server maps it in a
 * child process): another process maps the same bytes at the same address, and a freed span's pages
 * leave the file.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SharedRealArenaTest {
    private HsaRuntime rt;
    private MemoryPool real;

    @BeforeEach
    void open() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        assertTrue(rt.memory().shareRealSvm());
        real = rt.realSystemPool();
    }

    @AfterEach
    void close() {
        rt.close();
    }

    @Test
    void theArenaIsAFileOfThisProcessMappedAtItsAddresses() {
        long a = real.allocate(64);
        SvmShare share = rt.memory().svmShare().orElseThrow();
        assertEquals(ProcessHandle.current().pid(), share.pid());
        assertTrue(a >= share.address() && a + 64 <= share.address() + share.bytes());
        assertTrue(Files.exists(Path.of(share.path())), share.path());
    }

    @Test
    void anArenaNobodyAskedToShareStaysPrivateAndCannotBeShared() {
        try (HsaRuntime other = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build())) {
            other.realSystemPool().allocate(64);
            assertTrue(other.memory().svmShare().isEmpty());
            assertFalse(other.memory().shareRealSvm(), "too late: the arena was made private");
        }
    }

    @Test
    void theArenaLiesAtAHintedAddressFarFromWhereAJvmsOwnMappingsGo() {
        real.allocate(64);
        SvmShare share = rt.memory().svmShare().orElseThrow();
        // 16 TiB and up: above a JVM's heap and below its libraries and thread stacks, so a device
        // server JVM finds the same range free
        assertTrue(share.address() >= 1L << 44 && share.address() < (1L << 44) + (16L * (128L << 30)),
                Long.toHexString(share.address()));
    }

    @Test
    void aChildJvmMapsTheArenaAtTheSameAddressReadsWhatTheParentWroteAndWritesBack() throws Exception {
        long a = real.allocate(64);
        rt.svm().setLong(a, 0x1234_5678_9ABCL);
        SvmShare share = rt.memory().svmShare().orElseThrow();
        long chunk = a & -RealArena.CHUNK_SIZE;
        String[] r = child(share.path(), hex(share.address()), Long.toString(share.bytes()), hex(chunk),
                Long.toString(RealArena.CHUNK_SIZE), hex(a));
        assertEquals("0", r[0], r[1]);
        assertTrue(r[1].contains("read " + 0x1234_5678_9ABCL), r[1]);
        assertEquals(0x1234_5678_9ABDL, rt.svm().getLong(a + 8), "the child's store, seen by the parent");
    }

    @Test
    void aFreedSpanReadsZeroInTheFileSoNoOtherProcessSeesItsOldBytes() throws Exception {
        long bytes = 8L << 20;
        long a = real.allocate(bytes);
        rt.svm().setLong(a, 77);
        SvmShare share = rt.memory().svmShare().orElseThrow();
        real.free(a);
        // the span's chunks are reused only once the reservation was handed out: nobody maps them
        // here, so read the file itself at the span's offset
        byte[] eight = new byte[8];
        try (var f = new java.io.RandomAccessFile(share.path(), "r")) {
            f.seek(a - share.address());
            f.readFully(eight);
        }
        assertEquals(0L, java.nio.ByteBuffer.wrap(eight).getLong(), "the freed span's bytes left the file");
    }

    private static String hex(long v) {
        return Long.toHexString(v);
    }

    /** Runs {@link SharedArenaReader} (bounded: 60 s): its exit status (null if none) and output. */
    private static String[] child(String... args) throws Exception {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        StringBuilder cp = new StringBuilder();
        for (Class<?> c : List.of(SharedArenaReader.class, HsaRuntime.class)) {
            cp.append(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI())).append(File.pathSeparatorChar);
        }
        cp.append(System.getProperty("java.class.path"));
        List<String> cmd = new java.util.ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                cp.toString(), SharedArenaReader.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        CompletableFuture<String> text = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                return "cannot read the child's output: " + e;
            }
        });
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new String[] {null, "the child did not finish in 60 s"};
        }
        return new String[] {Integer.toString(p.exitValue()), text.get(10, TimeUnit.SECONDS)};
    }
}

package org.hsa4j.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fidelity mode is a strategy chosen once (issue 21 part 6): a runtime hands one {@link SvmAccess}
 * to every agent's memory view, normal mode's is {@link SvmAccess#DIRECT}, and the cache model's
 * package depends on this one, never the reverse.
 */
@Timeout(60)
class SvmAccessStrategyTest {

    @Test
    void aNormalModeRuntimeAccessesMemoryDirectly() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build())) {
            assertSame(SvmAccess.DIRECT, rt.svm().access());
            assertSame(SvmAccess.DIRECT, rt.gpuAgent().svm().access());
            assertFalse(rt.fidelityEnabled());
        }
    }

    @Test
    void aFidelityRuntimeHandsEveryAgentOneCoherentStrategy() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).fidelity(true).build())) {
            SvmAccess access = rt.svm().access();
            assertNotSame(SvmAccess.DIRECT, access);
            assertTrue(access.coherent());
            assertSame(access, rt.gpuAgent().svm().access(), "the GPU agent's view holds the runtime's strategy");
            assertTrue(rt.fidelityEnabled());
        }
    }

    @Test
    void aViewWithoutAStrategyAccessesMemoryDirectly() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build())) {
            long a = rt.hostMalloc(64);
            Svm svm = new Svm(rt.memory().addressSpace(), 0, "test", null, null);
            svm.setInt(a, 42);
            assertSame(SvmAccess.DIRECT, svm.access());
            assertEquals(42, rt.svm().getInt(a));
            assertEquals(42, svm.ints(a, 16).get(0));
        }
    }

    @Test
    void theMemoryPackageNeverNamesTheCoherencePackage() throws IOException, URISyntaxException {
        Path classes = Path.of(Svm.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve("org/hsa4j/memory");
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.list(classes)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                try (InputStream in = Files.newInputStream(f)) {
                    if (new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).contains("org/hsa4j/memory/coherence/")) {
                        offenders.add(f.getFileName().toString());
                    }
                }
            }
        }
        assertEquals(List.of(), offenders, "org.hsa4j.memory classes that name org.hsa4j.memory.coherence (a package cycle)");
    }
}

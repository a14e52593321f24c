package org.hsa4j.consumer.modular;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hsa4j.amp.Amp;
import org.hsa4j.runtime.HsaRuntime;
import org.junit.jupiter.api.Test;

class ModularConsumerTest {
    @Test
    void shouldRunAsANamedModuleBesideHsa4jsModules() {
        assertEquals("org.hsa4j.consumer.modular", ModularConsumer.class.getModule().getName());
        assertEquals("org.hsa4j.amp", Amp.class.getModule().getName());
        assertEquals("org.hsa4j.runtime", HsaRuntime.class.getModule().getName());
    }

    @Test
    void shouldSeeTheLayersApiButNotItsTileCompiler() {
        Module me = ModularConsumer.class.getModule();
        assertTrue(Amp.class.getModule().isExported("org.hsa4j.amp", me));
        assertFalse(Amp.class.getModule().isExported("org.hsa4j.amp.codegen", me));
        assertFalse(HsaRuntime.class.getModule().isExported("org.hsa4j.idle", me));
    }

    @Test
    void shouldAddVectorsThroughTheInstalledModules() {
        assertEquals(0, ModularConsumer.vectorAdd(100_000));
    }

    @Test
    void shouldBindAndRunACodeObjectsKernelFromThisModule() {
        assertEquals(42, ModularConsumer.codeObjectStore(42));
    }

    @Test
    void shouldRunATiledKernelAsWorkItemLoopsOnTheModulePath() {
        ModularConsumer.TileResult r = ModularConsumer.tileReverse(4096, 256);
        assertEquals(0, r.wrong());
        assertEquals(0, r.onVirtualThreads(), "work-items on virtual threads: the tile compiler was refused");
    }
}

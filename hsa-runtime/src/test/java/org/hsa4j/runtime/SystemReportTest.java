package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The rocminfo-style report, as text and as JSON, with the fields rocminfo users look for. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SystemReportTest {

    private static String capture(Consumer<PrintStream> writer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        writer.accept(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static HsaRuntime runtime() {
        return HsaRuntime.init(RuntimeConfig.builder().gpuAgents(2).computeUnits(1).build());
    }

    @Test
    void shouldWriteJsonWithEveryAgentAndItsRocminfoFields() {
        try (HsaRuntime rt = runtime()) {
            JsonObject root = JsonParser.parseString(capture(out -> SystemReport.writeJson(rt, out))).getAsJsonObject();
            JsonObject agents = root.getAsJsonObject("HSA Agents");
            assertEquals(rt.agents().size(), agents.size());
            for (int i = 1; i <= rt.agents().size(); i++) {
                JsonObject a = agents.getAsJsonObject("Agent " + i);
                assertEquals(rt.agents().get(i - 1).name(), a.get("Name").getAsString());
                assertTrue(a.get("Uuid").getAsString().matches("(GPU|CPU)-[0-9a-f]+"), a.get("Uuid").getAsString());
                assertFalse(a.get("Marketing Name").getAsString().isBlank());
                assertEquals("64(0x40)", a.get("Cacheline Size").getAsString());
                assertTrue(a.has("Cache Info"));
                assertTrue(a.getAsJsonObject("ISA Info").getAsJsonObject("ISA 1").get("Name").getAsString()
                        .startsWith("hsa4j-jvm-java"));
                assertEquals(rt.agents().get(i - 1).memoryPools().size(), a.getAsJsonObject("Pool Info").size());
            }
            assertTrue(root.getAsJsonObject("HSA System Attributes").has("Runtime Version"));
        }
    }

    @Test
    void shouldReportWorkgroupBarriersAvailableWithoutAnyJvmExport() {
        try (HsaRuntime rt = runtime()) {
            JsonObject system = JsonParser.parseString(capture(out -> SystemReport.writeJson(rt, out))).getAsJsonObject()
                    .getAsJsonObject("HSA System Attributes");
            String barriers = system.get("Workgroup barriers").getAsString();
            boolean continuations = "continuations".equals(System.getProperty("hsa4j.barriers"));
            assertEquals(continuations ? "continuations" : "virtual threads", barriers);
        }
    }

    @Test
    void shouldGiveEachAgentItsOwnUuid() {
        try (HsaRuntime rt = runtime()) {
            JsonObject agents = JsonParser.parseString(capture(out -> SystemReport.writeJson(rt, out)))
                    .getAsJsonObject().getAsJsonObject("HSA Agents");
            assertNotEquals(agents.getAsJsonObject("Agent 2").get("Uuid"), agents.getAsJsonObject("Agent 3").get("Uuid"));
        }
    }

    @Test
    void shouldShowTheModelCachesOfAGpuAgentInFidelityMode() {
        try (HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).fidelity(true).build())) {
            JsonObject caches = JsonParser.parseString(capture(out -> SystemReport.writeJson(rt, out))).getAsJsonObject()
                    .getAsJsonObject("HSA Agents").getAsJsonObject("Agent 2").getAsJsonObject("Cache Info");
            assertEquals("16KB", caches.get("L1 Data (per compute unit, model)").getAsString());
            assertEquals("2048KB", caches.get("L2 Unified (per agent, model)").getAsString());
        }
    }

    @Test
    void shouldShowEachAgentsScalingCounters() {
        try (HsaRuntime rt = runtime()) {
            String text = capture(out -> SystemReport.write(rt, out));
            for (String counter : new String[] {"Packets:", "Wake-ups:", "Role Hand-offs:", "CAS Retries:", "Parks:"}) {
                assertEquals(rt.agents().size(), text.lines().filter(l -> l.trim().startsWith(counter)).count(), text);
            }
        }
    }

    @Test
    void shouldWriteTheSameFactsAsText() {
        try (HsaRuntime rt = runtime()) {
            String text = capture(out -> SystemReport.write(rt, out));
            assertTrue(text.contains("HSA Agents"), text);
            assertEquals(rt.agents().size(), text.lines().filter(l -> l.matches("Agent \\d+")).count(), text);
            assertEquals(rt.agents().size(), text.lines().filter(l -> l.trim().startsWith("Uuid:")).count(), text);
            assertTrue(text.lines().anyMatch(l -> l.trim().startsWith("Cacheline Size:") && l.endsWith("64(0x40)")), text);
            assertTrue(text.endsWith("*** Done ***\n"), text);
        }
    }

    @Test
    void shouldReadSysfsCacheSizes() {
        assertEquals(32 * 1024, AgentFacts.parseSize("32K"));
        assertEquals(32L << 20, AgentFacts.parseSize("32M"));
        assertEquals(512, AgentFacts.parseSize("512"));
    }
}

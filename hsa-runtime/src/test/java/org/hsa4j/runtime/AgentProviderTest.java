package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.agent.Agent;
import org.hsa4j.agent.AgentFeature;
import org.hsa4j.agent.AgentProperties;
import org.hsa4j.agent.DeviceType;
import org.hsa4j.agent.spi.QueueBackend;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueErrorCallback;
import org.hsa4j.queue.QueueType;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.hsa4j.runtime.spi.AgentFactory;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** The agent-provider SPI: provided agents join the topology after the runtime's own, and leave with it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AgentProviderTest {
    private static final RuntimeConfig ONE_GPU = RuntimeConfig.builder().gpuAgents(1).computeUnits(1).build();

    /** A backend whose queues the runtime's own GPU agent serves; it counts the calls it gets. */
    static final class FakeBackend implements QueueBackend {
        final AtomicInteger created = new AtomicInteger();
        final AtomicInteger shutdowns = new AtomicInteger();
        final List<Queue> queues = new ArrayList<>();
        HsaRuntime rt;

        @Override
        public Queue createQueue(int size, QueueType type, QueueErrorCallback errorCallback) {
            created.incrementAndGet();
            Queue q = rt.gpuAgent().createQueue(size, type, errorCallback);
            queues.add(q);
            return q;
        }

        @Override
        public int queueCount() {
            return queues.size();
        }

        @Override
        public void shutdown(HsaException reason, long timeoutNanos) {
            shutdowns.incrementAndGet();
        }
    }

    /** Makes one provided agent per backend given. */
    record FakeProvider(List<FakeBackend> backends) implements AgentProvider {
        @Override
        public String name() {
            return "fake";
        }

        @Override
        public Found open(HsaRuntime runtime, int firstIndex) {
            List<Agent> made = new ArrayList<>();
            for (FakeBackend b : backends) {
                b.rt = runtime;
                made.add(AgentFactory.provided(firstIndex + made.size(), props("dev" + made.size()), runtime.memory(),
                        runtime.signals(), runtime.systemPool(), List.of(), runtime::timestamp, b));
            }
            return new Found(made, made.isEmpty() ? "no device: none here" : made.size() + " device(s)");
        }
    }

    static AgentProperties props(String name) {
        return new AgentProperties(name, DeviceType.GPU, EnumSet.of(AgentFeature.KERNEL_DISPATCH), 4, 32,
                new int[] {1024, 1024, 64}, 1024, new long[] {1L << 31, 65535, 65535}, 0xFFFF_FFFFL, 4, 1 << 16, 8,
                48 * 1024, 0);
    }

    @Test
    void providedAgentsAreListedAfterTheRuntimesOwnWithTheNextIndices() {
        FakeBackend b0 = new FakeBackend();
        FakeBackend b1 = new FakeBackend();
        try (HsaRuntime rt = HsaRuntime.init(ONE_GPU, List.of(new FakeProvider(List.of(b0, b1))))) {
            assertEquals(List.of("cpu0", "gpu0", "dev0", "dev1"), rt.agents().stream().map(Agent::name).toList());
            assertEquals(List.of("gpu0"), rt.gpuAgents().stream().map(Agent::name).toList());
            assertEquals(List.of("dev0", "dev1"), rt.providedAgents().stream().map(Agent::name).toList());
            assertEquals(2, rt.agents().get(2).index());
            assertEquals(3, rt.agents().get(3).index());
            assertTrue(rt.agents().get(2).isProvided());
            assertFalse(rt.gpuAgent().isProvided());
            assertEquals(List.of("fake: 2 device(s)"), rt.providerNotes());
        }
    }

    @Test
    void aProvidedAgentsQueuesComeFromItsBackend() {
        FakeBackend b = new FakeBackend();
        try (HsaRuntime rt = HsaRuntime.init(ONE_GPU, List.of(new FakeProvider(List.of(b))))) {
            Agent dev = rt.providedAgents().get(0);
            Queue q = dev.createQueue(64, QueueType.SINGLE, null);
            assertEquals(1, b.created.get());
            assertSame(b.queues.get(0), q);
            assertEquals(1, dev.queueCount());
            assertSame(b, dev.backend(FakeBackend.class).orElseThrow());
            assertTrue(rt.gpuAgent().backend(FakeBackend.class).isEmpty());
        }
    }

    @Test
    void aProvidedAgentStartsNoComputeUnits() {
        try (HsaRuntime rt = HsaRuntime.init(ONE_GPU, List.of(new FakeProvider(List.of(new FakeBackend()))))) {
            assertEquals(0, rt.providedAgents().get(0).computeUnitThreads().length);
            assertEquals(1, rt.gpuAgent().computeUnitThreads().length);
        }
    }

    @Test
    void closingTheRuntimeShutsEachBackendDownOnce() {
        FakeBackend b = new FakeBackend();
        HsaRuntime rt = HsaRuntime.init(ONE_GPU, List.of(new FakeProvider(List.of(b))));
        rt.close();
        rt.close();
        assertEquals(1, b.shutdowns.get());
        assertTrue(rt.providedAgents().get(0).isShutDown());
    }

    @Test
    void aProviderThatFindsNothingLeavesTheTopologyAsConfiguredAndSaysWhy() {
        try (HsaRuntime rt = HsaRuntime.init(ONE_GPU, List.of(new FakeProvider(List.of())))) {
            assertEquals(List.of("cpu0", "gpu0"), rt.agents().stream().map(Agent::name).toList());
            assertTrue(rt.providedAgents().isEmpty());
            assertEquals(List.of("fake: no device: none here"), rt.providerNotes());
        }
    }

    @Test
    void anExplicitConfigurationConsultsNoProvider() {
        try (HsaRuntime rt = HsaRuntime.init(ONE_GPU)) {
            assertTrue(rt.providedAgents().isEmpty());
            assertTrue(rt.providerNotes().isEmpty());
        }
    }

    @Test
    void aProvidersErrorFailsInitWithItsStatusAndShutsDownWhatWasProvided() {
        FakeBackend first = new FakeBackend();
        AgentProvider failing = new AgentProvider() {
            @Override
            public String name() {
                return "required";
            }

            @Override
            public Found open(HsaRuntime runtime, int firstIndex) {
                throw new HsaException(HsaStatus.INVALID_AGENT, "required but there is no device: why");
            }
        };
        HsaException e = assertThrows(HsaException.class,
                () -> HsaRuntime.init(ONE_GPU, List.of(new FakeProvider(List.of(first)), failing)));
        assertEquals(HsaStatus.INVALID_AGENT, e.status());
        assertEquals(1, first.shutdowns.get());
    }

    @Test
    void aProvidedAgentAtTheWrongIndexIsRefused() {
        AgentProvider wrong = new AgentProvider() {
            @Override
            public String name() {
                return "wrong";
            }

            @Override
            public Found open(HsaRuntime runtime, int firstIndex) {
                FakeBackend b = new FakeBackend();
                return new Found(List.of(AgentFactory.provided(firstIndex + 5, props("x"), runtime.memory(), runtime.signals(),
                        runtime.systemPool(), List.of(), runtime::timestamp, b)), "one");
            }
        };
        HsaException e = assertThrows(HsaException.class, () -> HsaRuntime.init(ONE_GPU, List.of(wrong)));
        assertEquals(HsaStatus.INVALID_AGENT, e.status());
    }

    @Test
    void deviceMallocOnAProvidedAgentIsInvalidAgent() {
        try (HsaRuntime rt = HsaRuntime.init(ONE_GPU, List.of(new FakeProvider(List.of(new FakeBackend()))))) {
            HsaException e = assertThrows(HsaException.class, () -> rt.deviceMalloc(rt.providedAgents().get(0), 64));
            assertEquals(HsaStatus.INVALID_AGENT, e.status());
        }
    }

    @Test
    void withNoProviderInstalledInitAddsNothing() {
        // hsa-runtime's own test class path holds no provider; a class path that also holds hsa-cuda (the
        // GPU machine's bundle puts every module on one) has its provider, which is not this case
        Assumptions.assumeFalse(onClassPath("org.hsa4j.cuda.CudaAgentProvider"),
                "skipped: hsa-cuda's provider is on this class path (every module on one class path)");
        assertTrue(HsaRuntime.installedProviders().isEmpty(), "hsa-runtime's own class path has no provider");
    }

    @Test
    void theSystemReportListsAProvidedAgentLikeAnyOther() {
        try (HsaRuntime rt = HsaRuntime.init(ONE_GPU, List.of(new FakeProvider(List.of(new FakeBackend()))))) {
            java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
            SystemReport.write(rt, new java.io.PrintStream(text, true, java.nio.charset.StandardCharsets.UTF_8));
            String out = text.toString(java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(out.contains("Agent 3") && out.contains("dev0"), out);
            java.io.ByteArrayOutputStream json = new java.io.ByteArrayOutputStream();
            SystemReport.writeJson(rt, new java.io.PrintStream(json, true, java.nio.charset.StandardCharsets.UTF_8));
            assertTrue(json.toString(java.nio.charset.StandardCharsets.UTF_8).contains("dev0"));
        }
    }

    private static boolean onClassPath(String className) {
        try {
            Class.forName(className, false, AgentProviderTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}

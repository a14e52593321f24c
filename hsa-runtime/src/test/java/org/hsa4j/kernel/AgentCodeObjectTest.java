package org.hsa4j.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueErrorCallback;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.AgentProvider;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.runtime.spi.AgentFactory;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code hsa_executable_load_agent_code_object}: each agent's {@link CodeObjectLoader} loads the
 * code objects of its ISA and refuses the others; a provided agent's kernels become the
 * executable's symbols for that agent, are validated with it and unloaded when it is destroyed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AgentCodeObjectTest {
    private static final byte[] PTX = CodeObjectFormatTest.PTX.getBytes(StandardCharsets.UTF_8);

    private HsaRuntime rt;

    @AfterEach
    void stop() {
        if (rt != null) {
            rt.close();
        }
    }

    /** A device loader like the CUDA agent's: device code only; each load yields kernel "k" and whatever {@code extra} names. */
    static final class DeviceLoader implements CodeObjectLoader {
        final List<byte[]> seen = new ArrayList<>();
        final List<Integer> agents = new ArrayList<>();
        final AtomicInteger unloads = new AtomicInteger();
        final List<String> extra = new ArrayList<>();
        final List<LoadedCodeObject> made = new ArrayList<>();
        final long handleBase;

        DeviceLoader(long handleBase) {
            this.handleBase = handleBase;
        }

        @Override
        public LoadedCodeObject load(Executable executable, CodeObjectReader reader, int agentIndex) {
            if (reader.format().isJvm()) {
                throw new HsaException(HsaStatus.INCOMPATIBLE_ARGUMENTS, reader.origin() + " is compiled Java");
            }
            seen.add(reader.bytes());
            agents.add(agentIndex);
            List<AgentKernel> kernels = new ArrayList<>();
            kernels.add(new AgentKernel("k", handleBase + 1, 28, 16, 1024, 8));
            for (String n : extra) {
                kernels.add(new AgentKernel(n, handleBase + 2, 0, 16, 0, 0));
            }
            LoadedCodeObject object = new LoadedCodeObject() {
                private volatile boolean gone;

                @Override
                public List<AgentKernel> kernels() {
                    return kernels;
                }

                @Override
                public List<String> validate() {
                    return gone ? List.of("kernel k: its module is unloaded") : List.of();
                }

                @Override
                public void unload() {
                    gone = true;
                    unloads.incrementAndGet();
                }
            };
            made.add(object);
            return object;
        }
    }

    /** One provided agent per loader given (null: the provided agent without a loader). */
    record Provider(List<DeviceLoader> loaders) implements AgentProvider {
        @Override
        public String name() {
            return "fake";
        }

        @Override
        public Found open(HsaRuntime runtime, int firstIndex) {
            List<Agent> made = new ArrayList<>();
            for (DeviceLoader l : loaders) {
                AgentProperties p = new AgentProperties("dev" + made.size(), DeviceType.GPU,
                        EnumSet.of(AgentFeature.KERNEL_DISPATCH), 4, 32, new int[] {1024, 1024, 64}, 1024,
                        new long[] {1L << 31, 65535, 65535}, 0xFFFF_FFFFL, 4, 1 << 16, 8, 48 * 1024, 0);
                int index = firstIndex + made.size();
                made.add(l == null
                        ? AgentFactory.provided(index, p, runtime.memory(), runtime.signals(), runtime.systemPool(), List.of(),
                                runtime::timestamp, new NoQueues())
                        : AgentFactory.provided(index, p, runtime.memory(), runtime.signals(), runtime.systemPool(), List.of(),
                                runtime::timestamp, new NoQueues(), l));
            }
            return new Found(made, made.size() + " device(s)");
        }
    }

    /** Queues are not what these tests are about. */
    static final class NoQueues implements QueueBackend {
        @Override
        public Queue createQueue(int size, QueueType type, QueueErrorCallback errorCallback) {
            throw new HsaException(HsaStatus.OUT_OF_RESOURCES, "no queues here");
        }

        @Override
        public int queueCount() {
            return 0;
        }

        @Override
        public void shutdown(HsaException reason, long timeoutNanos) {
        }
    }

    private HsaRuntime start(DeviceLoader... loaders) {
        rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(1).computeUnits(1).build(),
                List.of(new Provider(java.util.Arrays.asList(loaders))));
        return rt;
    }

    @Test
    void aWorkerPoolAgentRefusesPtxAsIncompatibleAndDefinesNothing() {
        start();
        Executable exe = rt.createExecutable();
        HsaException e = assertThrows(HsaException.class,
                () -> exe.loadAgentCodeObject(rt.gpuAgent(), CodeObjectReader.fromBytes(PTX)));
        assertEquals(HsaStatus.INCOMPATIBLE_ARGUMENTS, e.status());
        assertTrue(e.getMessage().contains("PTX"), e.getMessage());
        assertTrue(exe.freeze().symbols().isEmpty());
    }

    @Test
    void loadingPtxWithoutAnAgentIsIncompatible() {
        start();
        HsaException e = assertThrows(HsaException.class,
                () -> rt.createExecutable().loadCodeObject(CodeObjectReader.fromBytes(PTX)));
        assertEquals(HsaStatus.INCOMPATIBLE_ARGUMENTS, e.status());
        assertTrue(e.getMessage().contains("loadAgentCodeObject"), e.getMessage());
    }

    @Test
    void aWorkerPoolAgentLoadsAClassFileWhoseKernelRuns() throws IOException {
        start();
        long counter = rt.hostMalloc(8);
        Executable exe = rt.createExecutable().defineGlobalVariable("counter", counter);
        exe.loadAgentCodeObject(rt.gpuAgent(),
                CodeObjectReader.fromBytes(CodeObjectReaderTest.jar(ReaderKernels.class, ReaderHelper.class))).freeze();
        ExecutableSymbol s = exe.symbol("addToCounter", rt.gpuAgent());
        assertEquals(SymbolKind.KERNEL, s.kind());
        assertEquals(-1, s.agentIndex(), "every worker-pool agent runs a Java kernel");
        long kernarg = rt.kernargPool().allocate(8);
        rt.svm().setLong(kernarg, 7);
        Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        Signal done = rt.createSignal(1);
        try {
            Submit.kernel(q, s.kernelObject()).kernarg(kernarg).completion(done).submit();
            Await.completion(done);
        } finally {
            q.destroy();
        }
        assertEquals(7, rt.svm().getLong(counter));
    }

    @Test
    void theProvidedAgentsLoaderGetsTheReadersBytesAndItsIndex() {
        DeviceLoader loader = new DeviceLoader(0xD000);
        start(loader);
        Agent dev = rt.providedAgents().get(0);
        rt.createExecutable().loadAgentCodeObject(dev, CodeObjectReader.fromBytes(PTX));
        assertEquals(1, loader.seen.size());
        assertArrayEquals(PTX, loader.seen.get(0));
        assertEquals(List.of(dev.index()), loader.agents);
    }

    @Test
    void aProvidedAgentsKernelIsASymbolOfThatAgentWithItsSegmentSizes() {
        start(new DeviceLoader(0xD000));
        Agent dev = rt.providedAgents().get(0);
        Executable exe = rt.createExecutable().loadAgentCodeObject(dev, CodeObjectReader.fromBytes(PTX)).freeze();
        ExecutableSymbol s = exe.symbol("k", dev);
        assertEquals(SymbolKind.KERNEL, s.kind());
        assertEquals(0xD001, s.kernelObject());
        assertEquals(28, s.kernargSegmentSize());
        assertEquals(16, s.kernargSegmentAlignment());
        assertEquals(1024, s.groupSegmentSize());
        assertEquals(8, s.privateSegmentSize());
        assertEquals(dev.index(), s.agentIndex());
        assertEquals(s, exe.symbol("k"));
    }

    @Test
    void symbolIterationListsJavaKernelsThenAgentKernelsThenVariables() throws IOException {
        start(new DeviceLoader(0xD000));
        Agent dev = rt.providedAgents().get(0);
        Executable exe = rt.createExecutable().defineGlobalVariable("counter", rt.hostMalloc(8))
                .loadAgentCodeObject(dev, CodeObjectReader.fromBytes(PTX))
                .loadAgentCodeObject(rt.gpuAgent(), CodeObjectReader.fromBytes(
                        CodeObjectReaderTest.jar(ReaderKernels.class, ReaderHelper.class)))
                .freeze();
        assertEquals(List.of("addToCounter", "k", "counter"), exe.symbols().stream().map(ExecutableSymbol::name).toList());
        assertEquals(List.of(-1, dev.index(), -1), exe.symbols().stream().map(ExecutableSymbol::agentIndex).toList());
    }

    @Test
    void theProvidedAgentRefusesAClassFileAsIncompatible() throws IOException {
        start(new DeviceLoader(0xD000));
        HsaException e = assertThrows(HsaException.class, () -> rt.createExecutable().loadAgentCodeObject(
                rt.providedAgents().get(0), CodeObjectReader.fromBytes(CodeObjectReaderTest.classBytes(ReaderKernels.class))));
        assertEquals(HsaStatus.INCOMPATIBLE_ARGUMENTS, e.status());
    }

    @Test
    void aProvidedAgentWithoutALoaderRefusesEveryCodeObject() {
        start((DeviceLoader) null);
        HsaException e = assertThrows(HsaException.class, () -> rt.createExecutable().loadAgentCodeObject(
                rt.providedAgents().get(0), CodeObjectReader.fromBytes(PTX)));
        assertEquals(HsaStatus.INCOMPATIBLE_ARGUMENTS, e.status());
        assertTrue(e.getMessage().contains("loads no code objects"), e.getMessage());
    }

    @Test
    void destroyingTheExecutableUnloadsWhatTheAgentLoadedOnce() {
        DeviceLoader loader = new DeviceLoader(0xD000);
        start(loader);
        Executable exe = rt.createExecutable().loadAgentCodeObject(rt.providedAgents().get(0),
                CodeObjectReader.fromBytes(PTX)).freeze();
        exe.close();
        exe.close();
        assertEquals(1, loader.unloads.get());
    }

    @Test
    void validationReportsTheAgentsProblems() {
        DeviceLoader loader = new DeviceLoader(0xD000);
        start(loader);
        Agent dev = rt.providedAgents().get(0);
        Executable exe = rt.createExecutable().loadAgentCodeObject(dev, CodeObjectReader.fromBytes(PTX)).freeze();
        assertEquals(List.of(), exe.validate());
        loader.made.get(0).unload();   // as when the agent is closed under the executable
        List<String> problems = exe.validate();
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("dev0") && problems.get(0).contains("its module is unloaded"), problems.get(0));
    }

    @Test
    void aKernelNamedLikeAJavaKernelIsAlreadyDefinedAndItsCodeObjectUnloaded() throws IOException {
        DeviceLoader loader = new DeviceLoader(0xD000);
        loader.extra.add("addToCounter");
        start(loader);
        Executable exe = rt.createExecutable().defineGlobalVariable("counter", rt.hostMalloc(8))
                .loadAgentCodeObject(rt.gpuAgent(), CodeObjectReader.fromBytes(
                        CodeObjectReaderTest.jar(ReaderKernels.class, ReaderHelper.class)));
        HsaException e = assertThrows(HsaException.class,
                () -> exe.loadAgentCodeObject(rt.providedAgents().get(0), CodeObjectReader.fromBytes(PTX)));
        assertEquals(HsaStatus.VARIABLE_ALREADY_DEFINED, e.status());
        assertEquals(1, loader.unloads.get());
        assertEquals(List.of("addToCounter", "counter"),
                exe.freeze().symbols().stream().map(ExecutableSymbol::name).toList());
    }

    @Test
    void loadingOneCodeObjectTwiceForAnAgentIsAlreadyDefined() {
        start(new DeviceLoader(0xD000));
        Agent dev = rt.providedAgents().get(0);
        Executable exe = rt.createExecutable().loadAgentCodeObject(dev, CodeObjectReader.fromBytes(PTX));
        assertEquals(HsaStatus.VARIABLE_ALREADY_DEFINED, assertThrows(HsaException.class,
                () -> exe.loadAgentCodeObject(dev, CodeObjectReader.fromBytes(PTX))).status());
    }

    @Test
    void oneNameOnTwoAgentsIsLookedUpByAgent() {
        start(new DeviceLoader(0xD000), new DeviceLoader(0xE000));
        Agent dev0 = rt.providedAgents().get(0);
        Agent dev1 = rt.providedAgents().get(1);
        Executable exe = rt.createExecutable().loadAgentCodeObject(dev0, CodeObjectReader.fromBytes(PTX))
                .loadAgentCodeObject(dev1, CodeObjectReader.fromBytes(PTX)).freeze();
        assertEquals(0xD001, exe.symbol("k", dev0).kernelObject());
        assertEquals(0xE001, exe.symbol("k", dev1).kernelObject());
        assertEquals(HsaStatus.INVALID_ARGUMENT, assertThrows(HsaException.class, () -> exe.symbol("k")).status());
    }

    @Test
    void aDestroyedReaderIsRefusedBeforeTheAgentSeesIt() {
        DeviceLoader loader = new DeviceLoader(0xD000);
        start(loader);
        CodeObjectReader reader = CodeObjectReader.fromBytes(PTX);
        reader.close();
        assertEquals(HsaStatus.INVALID_CODE_OBJECT_READER, assertThrows(HsaException.class,
                () -> rt.createExecutable().loadAgentCodeObject(rt.providedAgents().get(0), reader)).status());
        assertTrue(loader.seen.isEmpty());
    }
}

package org.hsa4j.cuda;

import java.util.ArrayList;
import java.util.List;

import org.hsa4j.kernel.AgentKernel;
import org.hsa4j.kernel.CodeObjectLoader;
import org.hsa4j.kernel.CodeObjectReader;
import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.LoadedCodeObject;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The CUDA agent's side of {@code hsa_executable_load_agent_code_object}: a reader's PTX, cubin or
 * fat binary becomes a {@link CudaModule} of the agent, and each of its kernels an executable
 * symbol with its kernel object (which this agent's queues dispatch), kernarg size and alignment,
 * group and private segment sizes. Compiled Java is another ISA: INCOMPATIBLE_ARGUMENTS.
 */
final class CudaCodeObjectLoader implements CodeObjectLoader {
    private final CudaAgent agent;

    CudaCodeObjectLoader(CudaAgent agent) {
        this.agent = agent;
    }

    @Override
    public LoadedCodeObject load(Executable executable, CodeObjectReader reader, int agentIndex) {
        if (reader.format().isJvm()) {
            throw new HsaException(HsaStatus.INCOMPATIBLE_ARGUMENTS, "code object " + reader.origin() + " is "
                    + reader.format() + ": a CUDA agent runs PTX, cubins and fat binaries");
        }
        CudaModule module = agent.load(CudaCodeObject.fromBytes(reader.origin(), reader.bytes()));
        try {
            List<CudaKernel> kernels = new ArrayList<>();
            for (String name : module.kernelNames()) {
                kernels.add(module.kernel(name));
            }
            return new Loaded(agent, module, kernels);
        } catch (RuntimeException e) {
            agent.unload(module);
            throw e;
        }
    }

    /** A module loaded for an executable: its kernels until the executable is destroyed. */
    private static final class Loaded implements LoadedCodeObject {
        private final CudaAgent agent;
        private final CudaModule module;
        private final List<CudaKernel> kernels;
        private final List<AgentKernel> symbols;

        Loaded(CudaAgent agent, CudaModule module, List<CudaKernel> kernels) {
            this.agent = agent;
            this.module = module;
            this.kernels = List.copyOf(kernels);
            List<AgentKernel> out = new ArrayList<>();
            for (CudaKernel k : kernels) {
                out.add(new AgentKernel(k.symbol(), k.kernelObject(), (int) k.kernargSegmentSize(),
                        k.kernargs().segmentAlignment(), k.groupSegmentSize(), k.privateSegmentSize()));
            }
            this.symbols = List.copyOf(out);
        }

        @Override
        public List<AgentKernel> kernels() {
            return symbols;
        }

        @Override
        public List<String> validate() {
            List<String> problems = new ArrayList<>();
            if (agent.isLost()) {
                problems.add(agent.name() + " is lost: its context cannot be recreated in this process");
            }
            for (CudaKernel k : kernels) {
                if (agent.kernelObject(k.kernelObject()) != k) {
                    problems.add("kernel " + k.symbol() + ": its kernel object is not live (module "
                            + module.codeObject().name() + " unloaded, or the agent closed)");
                }
            }
            return problems;
        }

        @Override
        public void unload() {
            agent.unload(module);
        }
    }
}

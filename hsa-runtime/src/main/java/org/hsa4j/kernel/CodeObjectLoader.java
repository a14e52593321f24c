package org.hsa4j.kernel;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * How an agent loads a code object into an executable ({@code hsa_executable_load_agent_code_object}):
 * the service provider interface behind {@link Executable#loadAgentCodeObject}. Each agent has one,
 * chosen when it is made ({@link CodeObjectAgent#codeObjectLoader()}): the worker-pool agents load
 * compiled Java ({@link #jvm()}), a provided agent the code of its device (module hsa-cuda's CUDA
 * agent loads PTX, cubins and fat binaries as a CUDA module), so this module knows no device.
 * A loader refuses a code object of another ISA with INCOMPATIBLE_ARGUMENTS, as the spec says.
 */
public interface CodeObjectLoader {
    /**
     * Loads {@code reader}'s code object for the agent with index {@code agentIndex}.
     *
     * @param executable the executable it is loaded into (unfrozen; its lock held): a loader may
     *                   define kernels there itself, or return them as the loaded code object's
     * @return the loaded code object, whose kernels become the executable's symbols for that agent
     * @throws HsaException INCOMPATIBLE_ARGUMENTS when the code object is not of this agent's ISA,
     *                      INVALID_CODE_OBJECT when the agent cannot load it
     */
    LoadedCodeObject load(Executable executable, CodeObjectReader reader, int agentIndex);

    /** The worker-pool agents' loader: class files and jars, every {@link KernelSymbol} method a kernel. */
    static CodeObjectLoader jvm() {
        return JvmCodeObjectLoader.INSTANCE;
    }

    /** The loader of an agent that loads no code object: every load is INCOMPATIBLE_ARGUMENTS naming {@code agentName}. */
    static CodeObjectLoader none(String agentName) {
        return (executable, reader, agentIndex) -> {
            throw new HsaException(HsaStatus.INCOMPATIBLE_ARGUMENTS, "agent " + agentName + " loads no code objects ("
                    + reader.origin() + " is " + reader.format() + ")");
        };
    }
}

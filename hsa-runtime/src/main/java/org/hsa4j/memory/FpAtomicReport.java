package org.hsa4j.memory;

/**
 * One floating-point atomic add that hardware-style ("unsafe") atomics would have lost: it ran
 * on a GPU compute unit against fine-grained memory.
 *
 * @param address     the SVM address added to
 * @param agentIndex  index of the GPU agent whose compute unit ran the add
 * @param computeUnit the compute unit inside that agent
 * @param kernelName  the kernel the compute unit was running (null if unknown)
 */
public record FpAtomicReport(long address, int agentIndex, int computeUnit, String kernelName) {
    @Override
    public String toString() {
        return String.format("unsafe FP atomic on fine-grained memory at 0x%016x by agent %d cu %d in kernel %s",
                address, agentIndex, computeUnit, kernelName);
    }
}

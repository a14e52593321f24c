package org.hsa4j.agent;

import org.hsa4j.memory.Svm;

/**
 * The contents of a consumed agent dispatch packet, as its handler sees them.
 *
 * @param type          the application-defined function type
 * @param returnAddress SVM address for the result (0 when none)
 * @param arg0          argument 0
 * @param arg1          argument 1
 * @param arg2          argument 2
 * @param arg3          argument 3
 * @param packetId      the packet's id in its queue
 * @param svm           the serving agent's view of SVM
 */
public record AgentDispatchRequest(int type, long returnAddress, long arg0, long arg1, long arg2, long arg3,
                                   long packetId, Svm svm) {
    /** Argument {@code i} (0-3). */
    public long arg(int i) {
        return switch (i) {
            case 0 -> arg0;
            case 1 -> arg1;
            case 2 -> arg2;
            case 3 -> arg3;
            default -> throw new IndexOutOfBoundsException("agent dispatch argument " + i);
        };
    }
}

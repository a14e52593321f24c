package org.hsa4j.agent;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.hsa4j.kernel.Executable;
import org.hsa4j.kernel.KernelCode;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.MemoryFaultException;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.memory.Svm;
import org.hsa4j.packet.AgentDispatchPacket;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.status.HsaStatus;

/**
 * Reads and checks one AQL packet of an agent, and nothing else: no signal, queue, thread or
 * launch is touched, so every rule can be tested on a plain memory segment.
 *
 * <p>Each {@code check}/{@code decode} method returns null when the packet is good, with its fields
 * in this decoder's public-to-the-package fields, or the problem in words, with {@link #status}
 * the status ROCR or the spec gives it: dimensions and grid sizes that do not fit together are
 * INCOMPATIBLE_ARGUMENTS, a workgroup size outside the agent's limits is INVALID_ARGUMENT, segments
 * larger than the agent has are INVALID_ALLOCATION, a kernel object that names no kernel is
 * INVALID_CODE_OBJECT, a reserved fence scope, a packet type the agent does not run or an agent
 * dispatch type without a handler is INVALID_PACKET_FORMAT. The fields are overwritten by every
 * call, so one decoder belongs to one thread at a time (the processor role holder): decoding a
 * packet allocates nothing.
 */
final class PacketDecoder {
    private final String agentName;
    private final long agentBit;
    private final boolean kernels;
    private final boolean agentDispatches;
    private final int[] workgroupMaxDim;
    private final long[] gridMaxDim;
    private final long gridMaxSize;
    private final int workgroupMaxSize;
    private final int groupSegmentMax;
    private final int privateSegmentMax;
    private final MemoryManager memory;
    private final Svm svm;
    /** The kernel code {@link #kernelCode} found last, and its kernel object (role holder only). */
    private KernelCode lastCode;
    private long lastKernelObject;

    /** The status of the last problem found. */
    HsaStatus status;
    /** A decoded kernel dispatch's dimensions. */
    int dims;
    /** A decoded kernel dispatch's workgroup sizes. */
    int wgX, wgY, wgZ;
    /** A decoded kernel dispatch's grid sizes. */
    long gridX, gridY, gridZ;
    /** A decoded kernel dispatch's segment sizes in bytes. */
    int groupSize, privateSize;
    /** A decoded kernel dispatch's kernarg address. */
    long kernargAddress;
    /** A decoded kernel dispatch's kernarg segment (NULL when it has none the agent may read). */
    MemorySegment kernarg;
    /** A decoded kernel dispatch's kernel. */
    KernelCode code;
    /** A decoded agent dispatch's type. */
    int agentDispatchType;

    PacketDecoder(String agentName, int agentIndex, AgentProperties p, MemoryManager memory, Svm svm) {
        this.agentName = agentName;
        this.agentBit = 1L << agentIndex;
        this.kernels = p.features().contains(AgentFeature.KERNEL_DISPATCH);
        this.agentDispatches = p.features().contains(AgentFeature.AGENT_DISPATCH);
        this.workgroupMaxDim = p.workgroupMaxDim();
        this.gridMaxDim = p.gridMaxDim();
        this.gridMaxSize = p.gridMaxSize();
        this.workgroupMaxSize = p.workgroupMaxSize();
        this.groupSegmentMax = p.groupSegmentMax();
        this.privateSegmentMax = p.privateSegmentMax();
        this.memory = memory;
        this.svm = svm;
    }

    /** The problem with header {@code word} common to every packet type (a reserved fence scope), or null. */
    String checkHeader(int word) {
        if (PacketHeader.acquireScopeCode(word) == 3 || PacketHeader.releaseScopeCode(word) == 3) {
            return problem(HsaStatus.INVALID_PACKET_FORMAT, "reserved fence scope value 3 in the header");
        }
        return null;
    }

    /** The problem with a packet of a type no agent runs (vendor-specific or unknown). */
    String unsupportedType(int type) {
        return problem(HsaStatus.INVALID_PACKET_FORMAT, type == PacketType.VENDOR_SPECIFIC.code()
                ? "vendor-specific packets are not supported" : "unknown packet type " + type);
    }

    /**
     * The live kernel code of {@code kernelObject}, or null: the last one found is kept, so a stream
     * of dispatches of one kernel looks it up in the address space once (a released code is looked up
     * again: its executable was destroyed, and the handle may name another kernel now).
     */
    private KernelCode kernelCode(long kernelObject) {
        KernelCode last = lastCode;
        if (last != null && kernelObject == lastKernelObject && !last.isReleased()) {
            return last;
        }
        KernelCode found = Executable.fromHandle(memory, kernelObject);
        lastCode = found;
        lastKernelObject = kernelObject;
        return found;
    }

    /** Decodes the kernel dispatch packet at {@code off} of {@code ring} with header {@code word}; null when good. */
    String decodeKernel(MemorySegment ring, long off, int word) {
        code = null;
        kernarg = MemorySegment.NULL;
        if (!kernels) {
            return problem(HsaStatus.INVALID_PACKET_FORMAT, agentName + " does not run kernel dispatch packets");
        }
        dims = KernelDispatchPacket.dimensions(word >>> 16);
        wgX = Short.toUnsignedInt(ring.get(ValueLayout.JAVA_SHORT, off + KernelDispatchPacket.WORKGROUP_SIZE_X));
        wgY = Short.toUnsignedInt(ring.get(ValueLayout.JAVA_SHORT, off + KernelDispatchPacket.WORKGROUP_SIZE_Y));
        wgZ = Short.toUnsignedInt(ring.get(ValueLayout.JAVA_SHORT, off + KernelDispatchPacket.WORKGROUP_SIZE_Z));
        gridX = Integer.toUnsignedLong(ring.get(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GRID_SIZE_X));
        gridY = Integer.toUnsignedLong(ring.get(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GRID_SIZE_Y));
        gridZ = Integer.toUnsignedLong(ring.get(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GRID_SIZE_Z));
        long privateBytes = Integer.toUnsignedLong(ring.get(ValueLayout.JAVA_INT, off + KernelDispatchPacket.PRIVATE_SEGMENT_SIZE));
        long groupBytes = Integer.toUnsignedLong(ring.get(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GROUP_SEGMENT_SIZE));
        long kernelObject = ring.get(ValueLayout.JAVA_LONG, off + KernelDispatchPacket.KERNEL_OBJECT);
        kernargAddress = ring.get(ValueLayout.JAVA_LONG, off + KernelDispatchPacket.KERNARG_ADDRESS);

        String problem = dims < 1 ? "setup gives 0 dimensions (must be 1 to 3)" : null;
        for (int d = 0; d < 3 && problem == null; d++) {
            problem = checkGridAxis(d, dims, d == 0 ? wgX : d == 1 ? wgY : wgZ, d == 0 ? gridX : d == 1 ? gridY : gridZ);
        }
        long gridTotal = saturatingProduct(saturatingProduct(gridX, gridY), gridZ);
        if (problem == null && gridTotal > gridMaxSize) {
            problem = "grid of " + Long.toUnsignedString(gridX * gridY * gridZ) + " work-items exceeds the agent's maximum "
                    + gridMaxSize;
        }
        if (problem != null) {
            return problem(HsaStatus.INCOMPATIBLE_ARGUMENTS, problem);
        }
        for (int d = 0; d < dims && problem == null; d++) {
            problem = checkWorkgroupAxis(d, d == 0 ? wgX : d == 1 ? wgY : wgZ);
        }
        long wgTotal = (long) wgX * wgY * wgZ;
        if (problem == null && wgTotal > workgroupMaxSize) {
            problem = "workgroup of " + wgTotal + " work-items exceeds the agent's maximum " + workgroupMaxSize;
        }
        if (problem != null) {
            return problem(HsaStatus.INVALID_ARGUMENT, problem);
        }
        if (groupBytes > groupSegmentMax) {
            return problem(HsaStatus.INVALID_ALLOCATION, "group segment of " + groupBytes
                    + " bytes exceeds the agent's maximum " + groupSegmentMax);
        }
        if (privateBytes > privateSegmentMax) {
            return problem(HsaStatus.INVALID_ALLOCATION, "private segment of " + privateBytes
                    + " bytes exceeds the agent's maximum " + privateSegmentMax);
        }
        groupSize = (int) groupBytes;
        privateSize = (int) privateBytes;
        KernelCode found = kernelCode(kernelObject);
        if (found == null) {
            return problem(HsaStatus.INVALID_CODE_OBJECT, String.format("unknown kernel object 0x%x", kernelObject));
        }
        KernelDescriptor kd = found.descriptor();
        if (groupBytes < kd.groupSegmentSize()) {
            return problem(HsaStatus.INCOMPATIBLE_ARGUMENTS, "group segment of " + groupBytes + " bytes is below kernel "
                    + found.name() + "'s " + kd.groupSegmentSize());
        }
        if (privateBytes < kd.privateSegmentSize()) {
            return problem(HsaStatus.INCOMPATIBLE_ARGUMENTS, "private segment of " + privateBytes
                    + " bytes is below kernel " + found.name() + "'s " + kd.privateSegmentSize());
        }
        if (kd.kernargSegmentSize() > 0) {
            try {
                kernarg = svm.segment(kernargAddress, kd.kernargSegmentSize());
            } catch (MemoryFaultException e) {
                return problem(e.status(), String.format("kernarg segment of %d bytes at 0x%x is outside memory %s may read (%s)",
                        kd.kernargSegmentSize(), kernargAddress, agentName, e.getMessage()));
            }
        } else if (kernargAddress != 0) {
            Allocation a = memory.find(kernargAddress);
            if (a != null && (a.accessMask() & agentBit) != 0) {
                kernarg = a.segment().asSlice(kernargAddress - a.base());
            }
        }
        code = found;
        return null;
    }

    /** Checks the agent dispatch packet with header {@code word}: null when the agent runs its type (then in {@link #agentDispatchType}). */
    String checkAgentDispatch(int word, AgentDispatchHandler handler) {
        agentDispatchType = agentDispatchType(word);
        if (!agentDispatches) {
            return problem(HsaStatus.INVALID_PACKET_FORMAT, agentName + " does not run agent dispatch packets");
        }
        if (handler == null) {
            return problem(HsaStatus.INVALID_PACKET_FORMAT, "no agent dispatch handler for type " + agentDispatchType
                    + " on " + agentName);
        }
        return null;
    }

    /** The type field of an agent dispatch packet's header {@code word}. */
    static int agentDispatchType(int word) {
        return (word >>> 16) & 0xFFFF;
    }

    /** The request an agent dispatch packet at {@code off} of {@code ring} carries, as packet {@code index}. */
    AgentDispatchRequest agentDispatchRequest(MemorySegment ring, long off, int type, long index) {
        return new AgentDispatchRequest(type,
                ring.get(ValueLayout.JAVA_LONG, off + AgentDispatchPacket.RETURN_ADDRESS),
                ring.get(ValueLayout.JAVA_LONG, off + AgentDispatchPacket.ARG0),
                ring.get(ValueLayout.JAVA_LONG, off + AgentDispatchPacket.ARG0 + 8),
                ring.get(ValueLayout.JAVA_LONG, off + AgentDispatchPacket.ARG0 + 16),
                ring.get(ValueLayout.JAVA_LONG, off + AgentDispatchPacket.ARG0 + 24),
                index, svm);
    }

    private String problem(HsaStatus s, String problem) {
        status = s;
        return problem;
    }

    /** {@code a * b} for non-negative factors, or Long.MAX_VALUE when it overflows. */
    private static long saturatingProduct(long a, long b) {
        long low = a * b;
        return Math.multiplyHigh(a, b) != 0 || low < 0 ? Long.MAX_VALUE : low;
    }

    /** The problem with the grid of axis {@code d} of a {@code dims}-dimensional dispatch, or null. */
    private String checkGridAxis(int d, int dims, int wg, long grid) {
        char axis = "xyz".charAt(d);
        if (d >= dims) {
            return wg != 1 || grid != 1 ? "workgroup_size_" + axis + " and grid_size_" + axis + " must be 1 in a "
                    + dims + "-dimensional dispatch" : null;
        }
        return grid < 1 || grid > gridMaxDim[d] ? "grid_size_" + axis + " " + grid + " is outside 1.." + gridMaxDim[d] : null;
    }

    /** The problem with the workgroup size of used axis {@code d}, or null. */
    private String checkWorkgroupAxis(int d, int wg) {
        return wg < 1 || wg > workgroupMaxDim[d]
                ? "workgroup_size_" + "xyz".charAt(d) + " " + wg + " is outside 1.." + workgroupMaxDim[d] : null;
    }
}

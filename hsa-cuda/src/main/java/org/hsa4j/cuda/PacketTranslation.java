package org.hsa4j.cuda;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.LongFunction;

import org.hsa4j.packet.AqlPacket;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The pure half of the CUDA packet processor: AQL packet fields to a CUDA launch, with the
 * validation statuses, and no driver call, so it is tested without a GPU.
 *
 * <p><b>Grid.</b> An HSA grid is given in work-items per dimension; CUDA's in blocks. The block is
 * the workgroup, and the grid has {@code ceil(grid / workgroup)} blocks per dimension. The spec
 * lets the last workgroup of a dimension be partial; CUDA has no partial blocks, so the last
 * block's threads past the grid run too and a kernel checks its global id against the grid size
 * (a kernarg), which is how every CUDA kernel handles a size that is not a multiple of its block.
 *
 * <p><b>Group segment.</b> The packet's group segment size covers the kernel's static shared memory
 * and any dynamic shared memory; the launch gets the difference as dynamic shared bytes.
 *
 * <p><b>Kernarg.</b> The packet's kernarg address names the segment whose bytes, laid out as the
 * kernel's parameters ({@link KernargLayout}), go to {@code cuLaunchKernel} as one buffer
 * (CU_LAUNCH_PARAM_BUFFER_POINTER); it must be 16-byte aligned, as the spec requires.
 */
final class PacketTranslation {
    /** The kernarg segment's alignment the spec requires. */
    static final long KERNARG_ALIGNMENT = 16;

    private PacketTranslation() {
    }

    /** A device's launch limits. */
    record Limits(int[] blockMax, int maxThreadsPerBlock, long[] gridMaxBlocks, int sharedPerBlock,
                  int privateSegmentMax, String agentName) {
        static Limits of(CudaDeviceInfo d) {
            // the agent advertises the opt-in size as its group segment maximum; a launch past the
            // default 48 KiB opts its kernel in first (CudaKernel.function)
            return new Limits(d.blockMax(), d.maxThreadsPerBlock(), d.gridMax(),
                    Math.max(d.sharedPerBlock(), d.sharedPerBlockOptin()), CudaDeviceInfo.PRIVATE_SEGMENT_MAX, d.agentName());
        }
    }

    /** One CUDA launch: blocks and threads per dimension, dynamic shared bytes, the kernarg segment. */
    record Launch(CudaKernel kernel, int dims, int blocksX, int blocksY, int blocksZ, int threadsX, int threadsY,
                  int threadsZ, int dynamicShared, long kernargAddress, long kernargBytes) {
    }

    /** The problem with a header's fence scopes, or null: the value 3 is reserved. */
    static String fenceProblem(int word) {
        if (PacketHeader.acquireScopeCode(word) == 3 || PacketHeader.releaseScopeCode(word) == 3) {
            return "reserved fence scope value 3 in the header";
        }
        return null;
    }

    /** Blocks needed to cover {@code grid} work-items with workgroups of {@code workgroup}. */
    static long blocks(long grid, int workgroup) {
        return (grid + workgroup - 1) / workgroup;
    }

    /**
     * Translates the kernel dispatch packet at {@code off} of {@code ring} (header word {@code word}).
     *
     * @throws HsaException INVALID_PACKET_FORMAT naming the field at fault
     */
    static Launch translate(MemorySegment ring, long off, int word, Limits limits, LongFunction<CudaKernel> kernels) {
        int dims = KernelDispatchPacket.dimensions(word >>> 16);
        int[] wg = {
                Short.toUnsignedInt(ring.get(ValueLayout.JAVA_SHORT, off + KernelDispatchPacket.WORKGROUP_SIZE_X)),
                Short.toUnsignedInt(ring.get(ValueLayout.JAVA_SHORT, off + KernelDispatchPacket.WORKGROUP_SIZE_Y)),
                Short.toUnsignedInt(ring.get(ValueLayout.JAVA_SHORT, off + KernelDispatchPacket.WORKGROUP_SIZE_Z))};
        long[] grid = {
                Integer.toUnsignedLong(ring.get(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GRID_SIZE_X)),
                Integer.toUnsignedLong(ring.get(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GRID_SIZE_Y)),
                Integer.toUnsignedLong(ring.get(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GRID_SIZE_Z))};
        long privateSize = Integer.toUnsignedLong(ring.get(ValueLayout.JAVA_INT, off + KernelDispatchPacket.PRIVATE_SEGMENT_SIZE));
        long groupSize = Integer.toUnsignedLong(ring.get(ValueLayout.JAVA_INT, off + KernelDispatchPacket.GROUP_SEGMENT_SIZE));
        long kernelObject = ring.get(ValueLayout.JAVA_LONG, off + KernelDispatchPacket.KERNEL_OBJECT);
        long kernarg = ring.get(ValueLayout.JAVA_LONG, off + KernelDispatchPacket.KERNARG_ADDRESS);

        if (dims < 1) {
            throw bad("setup gives 0 dimensions (must be 1 to 3)");
        }
        long[] blocks = new long[3];
        long threads = 1;
        for (int d = 0; d < 3; d++) {
            char axis = "xyz".charAt(d);
            if (d >= dims) {
                if (wg[d] != 1 || grid[d] != 1) {
                    throw bad("workgroup_size_" + axis + " and grid_size_" + axis + " must be 1 in a " + dims
                            + "-dimensional dispatch");
                }
                blocks[d] = 1;
                continue;
            }
            if (wg[d] < 1 || wg[d] > limits.blockMax()[d]) {
                throw bad("workgroup_size_" + axis + " " + wg[d] + " is outside 1.." + limits.blockMax()[d]);
            }
            if (grid[d] < 1) {
                throw bad("grid_size_" + axis + " is 0");
            }
            blocks[d] = blocks(grid[d], wg[d]);
            if (blocks[d] > limits.gridMaxBlocks()[d]) {
                throw bad("grid_size_" + axis + " " + grid[d] + " needs " + blocks[d] + " workgroups, more than "
                        + limits.gridMaxBlocks()[d]);
            }
            threads *= wg[d];
        }
        if (threads > limits.maxThreadsPerBlock()) {
            throw bad("workgroup of " + threads + " work-items exceeds the agent's maximum " + limits.maxThreadsPerBlock());
        }
        if (groupSize > limits.sharedPerBlock()) {
            throw bad("group segment of " + groupSize + " bytes exceeds the agent's maximum " + limits.sharedPerBlock());
        }
        if (privateSize > limits.privateSegmentMax()) {
            throw bad("private segment of " + privateSize + " bytes exceeds the agent's maximum " + limits.privateSegmentMax());
        }
        CudaKernel k = kernels.apply(kernelObject);
        if (k == null) {
            throw bad(String.format("unknown kernel object 0x%x", kernelObject));
        }
        if (threads > k.maxThreadsPerBlock()) {
            throw bad("workgroup of " + threads + " work-items exceeds kernel " + k.symbol() + "'s maximum "
                    + k.maxThreadsPerBlock());
        }
        if (groupSize != 0 && groupSize < k.groupSegmentSize()) {
            throw bad("group segment of " + groupSize + " bytes is below kernel " + k.symbol() + "'s "
                    + k.groupSegmentSize());
        }
        long kernargBytes = k.kernargSegmentSize();
        if (kernargBytes > 0) {
            if (kernarg == 0) {
                throw bad("kernel " + k.symbol() + " takes " + kernargBytes + " bytes of kernarg but kernarg_address is 0");
            }
            if (kernarg % KERNARG_ALIGNMENT != 0) {
                throw bad(String.format("kernarg_address 0x%x is not %d-byte aligned", kernarg, KERNARG_ALIGNMENT));
            }
        }
        int dynamicShared = (int) Math.max(0, groupSize - k.groupSegmentSize());
        return new Launch(k, dims, (int) blocks[0], (int) blocks[1], (int) blocks[2], wg[0], wg[1], wg[2], dynamicShared,
                kernarg, kernargBytes);
    }

    private static HsaException bad(String problem) {
        return new HsaException(HsaStatus.INVALID_PACKET_FORMAT, problem);
    }

    /** The completion signal handle of any packet. */
    static long completionSignal(MemorySegment ring, long off) {
        return ring.get(ValueLayout.JAVA_LONG, off + AqlPacket.COMPLETION_SIGNAL);
    }
}

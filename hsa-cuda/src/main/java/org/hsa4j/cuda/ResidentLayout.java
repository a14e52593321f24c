package org.hsa4j.cuda;

import org.hsa4j.runtime.HsaStatus;

/**
 * Layout of what the GPU-resident packet processor ({@code hsa4j_resident.cu}) shares with its host
 * half ({@link CudaResidentProcessor}): the control block in pinned host memory, the mailbox in
 * device memory, kernel object handles, states and error codes. Each constant has its {@code #define}
 * twin {@code HSA4J_R_<NAME>} in the .cu file; {@code CudaResidentProgramTest} checks they agree.
 *
 * <p>One writer per word (the H100 has no host-native atomics: a host RMW and a device RMW on one
 * word are not atomic with each other): the host stores {@link #CTL_STOP}; the processor stores
 * everything else in the control block, and the host reads it (while the grid runs, to watch; after
 * it ended, to decide).
 */
final class ResidentLayout {
    /** Threads of a processor block: the largest workgroup a resident dispatch may have. */
    static final int BLOCK = 256;

    // ---- control block (pinned host memory, CTL_BYTES) ------------------------------------------

    /** u32, host stores 1 (release) to stop the grid; the processor loads it (ld.acquire.sys). */
    static final long CTL_STOP = 0;
    /** u32, processor stores a STATE_* (st.release.sys); on a line of its own, away from the host's word. */
    static final long CTL_STATE = 64;
    /** u32, processor stores an ERR_* before STATE_FAILED. */
    static final long CTL_ERROR = 68;
    /** u32, processor stores the failing field's value (type, kernel object's low bits, workgroup size, ...). */
    static final long CTL_ERROR_DETAIL = 72;
    /** u64, processor stores the packet id of the packet it refused (left in the ring for the host). */
    static final long CTL_ERROR_PACKET = 80;
    /** u64, processor stores its read index after each packet (relaxed): how far it got, for messages. */
    static final long CTL_PROCESSED = 88;
    /** u64, processor stores the mailbox generation when the grid ends (the host zeroes the mailbox before each launch: diagnostics only). */
    static final long CTL_GENERATION = 96;
    /** u64, processor stores 1 + the id of the packet it took (header INVALID, not completed yet): which one a fault hit. */
    static final long CTL_TAKEN = 104;
    /** Bytes of the control block. */
    static final long CTL_BYTES = 128;

    // ---- states (CTL_STATE) ---------------------------------------------------------------------

    /** Written by the host before a launch (the grid has not stored anything yet). */
    static final int STATE_LAUNCHED = 0;
    /** The grid serves the queue. */
    static final int STATE_RUNNING = 1;
    /** The grid found the queue idle for the idle period, saw no new write index after a full fence, and ended. */
    static final int STATE_PARKED = 2;
    /** The grid saw CTL_STOP and ended. */
    static final int STATE_STOPPED = 3;
    /** The grid refused the packet at CTL_ERROR_PACKET (CTL_ERROR says why) and ended. */
    static final int STATE_FAILED = 4;
    /** A barrier packet waited longer than the idle period: the grid ended; the host relaunches after a pause. */
    static final int STATE_WAITING = 5;

    // ---- errors (CTL_ERROR) ---------------------------------------------------------------------

    /** Not a kernel dispatch or barrier packet (detail: the type). */
    static final int ERR_PACKET_TYPE = 1;
    /** Not a kernel object of the queue's program (detail: its low 32 bits). */
    static final int ERR_KERNEL_OBJECT = 2;
    /** Workgroup size 0 or above {@link #BLOCK} (detail: the product). */
    static final int ERR_WORKGROUP = 3;
    /** A grid size 0 (detail 0), or more than 2^32-1 workgroups (detail 1). */
    static final int ERR_GRID = 4;
    /** Dimensions not 1..3, or an unused dimension not 1 (detail: the dimensions). */
    static final int ERR_DIMENSIONS = 5;
    /** A dynamic group segment (detail: its bytes): not supported by resident kernels. */
    static final int ERR_GROUP_SEGMENT = 6;
    /** A fence scope code 3 (detail: the header). */
    static final int ERR_FENCE = 7;

    // ---- mailbox (device memory) ----------------------------------------------------------------

    /** Bytes of the mailbox ({@code hsa4j_r_mailbox}): generation, the work, done, each on 128 bytes. */
    static final long MAILBOX_BYTES = 384;

    // ---- kernel objects -------------------------------------------------------------------------

    /** Bits 48..63 of a resident kernel object (a host-side processor's are 0xC0DA). */
    static final long KERNEL_OBJECT_TAG = 0xC0DBL;

    private ResidentLayout() {
    }

    /** The kernel object of kernel {@code index} of program {@code program} (1..65535): tag, program, index. */
    static long kernelObject(int program, int index) {
        return KERNEL_OBJECT_TAG << 48 | (long) (program & 0xFFFF) << 32 | (index & 0xFFFF_FFFFL);
    }

    /** What the processor compares a kernel object's bits 32..63 with: the program's key. */
    static long programKey(int program) {
        return KERNEL_OBJECT_TAG << 16 | (program & 0xFFFF);
    }

    /** A state's name, for messages. */
    static String stateName(int state) {
        return switch (state) {
            case STATE_LAUNCHED -> "LAUNCHED";
            case STATE_RUNNING -> "RUNNING";
            case STATE_PARKED -> "PARKED";
            case STATE_STOPPED -> "STOPPED";
            case STATE_FAILED -> "FAILED";
            case STATE_WAITING -> "WAITING";
            default -> "unknown state " + state;
        };
    }

    /** The status the queue's error callback gets for {@code error}. */
    static HsaStatus errorStatus(int error) {
        return HsaStatus.INVALID_PACKET_FORMAT;
    }

    /** What went wrong, for the queue's error: {@code error} with its {@code detail}. */
    static String errorMessage(int error, int detail) {
        return switch (error) {
            case ERR_PACKET_TYPE -> "the resident processor runs kernel dispatch and barrier-AND/OR packets only, not type "
                    + detail;
            case ERR_KERNEL_OBJECT -> String.format("kernel object (low bits 0x%x) is not a kernel of this queue's resident "
                    + "program (CudaResidentProgram.kernelObject gives them)", detail);
            case ERR_WORKGROUP -> "workgroup size " + detail + " is outside 1.." + BLOCK + " (the resident processor's block)";
            case ERR_GRID -> detail == 0 ? "a grid size is 0" : "the grid has more than 2^32-1 workgroups";
            case ERR_DIMENSIONS -> "dimensions " + detail + " (must be 1..3, unused dimensions of grid and workgroup 1)";
            case ERR_GROUP_SEGMENT -> "group segment of " + detail + " bytes: resident kernels have no dynamic group segment";
            case ERR_FENCE -> String.format("header 0x%04x has fence scope code 3 (reserved)", detail);
            default -> "unknown resident processor error " + error + " (detail " + detail + ")";
        };
    }
}

package org.hsa4j.cuda;

import java.util.Locale;

import org.hsa4j.status.HsaStatus;

/**
 * Layout of what the GPU-resident packet processor ({@code hsa4j_resident.cu}) shares with its host
 * half ({@link CudaResidentProcessor}, {@link ResidentShadow}): the control block in pinned host
 * memory, the mailbox in device memory, the shadow ring in SVM, kernel object handles, states and
 * error codes. Each constant has its {@code #define}
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
    /** u64, processor stores its read index after each signalled packet and read-index store (relaxed): how far it got. */
    static final long CTL_PROCESSED = 88;
    /** u64, processor stores the mailbox generation when the grid ends (the host zeroes the mailbox before each launch: diagnostics only). */
    static final long CTL_GENERATION = 96;
    /** u64, reserved (was: 1 + the id of the packet taken; the processor now retires slots late, see CTL_PROCESSED). */
    static final long CTL_TAKEN = 104;
    /** u64[PHASE_COUNT], processor stores its phase timer (PH_*) when the grid ends (relaxed, before its last fence). */
    static final long CTL_PHASES = 128;
    /** Bytes of the control block. */
    static final long CTL_BYTES = 384;

    // ---- the phase timer (u64 words at CTL_PHASES; *_CYCLES are clock64 deltas of the CP's thread) ----

    /** Words of the phase timer. */
    static final int PHASE_COUNT = 19;
    /** clock64 cycles of the grid's life (with PH_NANOS: cycles per ns). */
    static final int PH_CYCLES = 0;
    /** globaltimer ns of the grid's life. */
    static final int PH_NANOS = 1;
    /** Packets completed. */
    static final int PH_PACKETS = 2;
    /** Header rounds that found nothing published (count). */
    static final int PH_POLLS = 3;
    /** Cycles of those empty header rounds. */
    static final int PH_POLL_CYCLES = 4;
    /** Windows read (header rounds that found a packet). */
    static final int PH_WINDOWS = 5;
    /** Cycles of the header rounds of those windows. */
    static final int PH_HEADER_CYCLES = 6;
    /** Cycles of the windows' acquire fences (fence.acq_rel.sys). */
    static final int PH_ACQUIRE_CYCLES = 7;
    /** Cycles of the windows' body rounds. */
    static final int PH_BODY_CYCLES = 8;
    /** Cycles of decoding and taking dispatches (no host-memory store: the slot goes INVALID at the next header round). */
    static final int PH_TAKE_CYCLES = 9;
    /** Cycles from a dispatch taken to its completion starting (the kernel, the mailbox hand-off and wait). */
    static final int PH_RUN_CYCLES = 10;
    /** Flushes (fence, read index, signal): per signalled packet and per window. */
    static final int PH_FLUSHES = 11;
    /** Cycles of the flushes. */
    static final int PH_FLUSH_CYCLES = 12;
    /** Naps of the idle poll (count). */
    static final int PH_NAPS = 13;
    /** Cycles of the naps. */
    static final int PH_NAP_CYCLES = 14;
    /** Cycles of the stop checks (ld.acquire.sys of CTL_STOP). */
    static final int PH_STOP_CYCLES = 15;
    /** Windows taken from the shadow ring (no body round: the header's round brought the packet). */
    static final int PH_SHADOW_HITS = 16;
    /** Cycles before the first look after a signalled completion: the fence that waits for its stores, then the rest of the lead. */
    static final int PH_LEAD_CYCLES = 17;
    /** First looks after a signalled completion that found nothing (each lengthened the lead). */
    static final int PH_LEAD_MISSES = 18;

    // ---- the shadow ring (device-reachable SVM, 128 bytes per ring slot; ResidentShadow) -------------

    /**
     * Bytes of a piece: two of a slot's words, one 16-byte load. A slot's eight pieces are one 128-byte
     * line ({@link #shadowPiece}), which block 0's first eight threads load together, one request
     * (on the H200 one thread's eight loads of one line took 4.7-5.3 us, four PCIe round trips; of
     * eight lines 2.5-2.8 us; a warp's one load of a line is one round trip, 1.3-1.5 us).
     */
    static final int SHADOW_PIECE_BYTES = 16;
    /** Pieces of a slot. */
    static final int SHADOW_PIECES = 8;
    /** u64 words of a slot; word k is {@code tag << 32 | payload k}, each written by one 8-byte store. */
    static final int SHADOW_WORDS = 2 * SHADOW_PIECES;
    /**
     * The word whose payload is the packet id's low half instead of the packet's 32-bit word 12 (the
     * first half of reserved2, bytes 48..55 of every AQL packet type): only packets whose reserved2 is 0
     * are shadowed, and the processor puts 0 back.
     */
    static final int SHADOW_ID_LOW = 12;
    /** The word whose payload is the packet id's high half (the second half of reserved2), ids below 2^63. */
    static final int SHADOW_ID_HIGH = 13;
    /**
     * Bit 31 of {@link #SHADOW_ID_HIGH}'s payload: the copier saw packet id+2 reserved too (the write
     * index past it), a hint that a batch follows (the processor then reads 32-slot windows; the id's
     * high half has 31 bits).
     */
    static final long SHADOW_MORE = 1L << 31;

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

    /** Bytes of the shadow ring of a queue of {@code size} slots. */
    static long shadowBytes(long size) {
        return size * SHADOW_PIECES * SHADOW_PIECE_BYTES;
    }

    /** Offset of piece {@code q} (words 2q and 2q+1) of slot {@code slot} in the shadow ring. */
    static long shadowPiece(long slot, int q) {
        return (slot * SHADOW_PIECES + q) * SHADOW_PIECE_BYTES;
    }

    /** The kernel object of kernel {@code index} of program {@code program} (1..65535): tag, program, index. */
    static long kernelObject(int program, int index) {
        return KERNEL_OBJECT_TAG << 48 | (long) (program & 0xFFFF) << 32 | (index & 0xFFFF_FFFFL);
    }

    /** What the processor compares a kernel object's bits 32..63 with: the program's key. */
    static long programKey(int program) {
        return KERNEL_OBJECT_TAG << 16 | (program & 0xFFFF);
    }

    /**
     * The phase timer {@code ph} (summed over launches) as one line: per packet, in ns, where the
     * command processor's time went (cycles converted with the grid's own cycles per ns).
     */
    static String phaseReport(long[] ph) {
        double nsPerCycle = ph[PH_CYCLES] == 0 ? 0 : (double) ph[PH_NANOS] / ph[PH_CYCLES];
        long packets = Math.max(1, ph[PH_PACKETS]);
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "%d packets in %d windows, %.3f ns/cycle, grid alive %.1f us/packet;", ph[PH_PACKETS],
                ph[PH_WINDOWS], nsPerCycle, ph[PH_NANOS] / 1e3 / packets));
        s.append(perPacket(" empty polls", ph[PH_POLLS], ph[PH_POLL_CYCLES], nsPerCycle, packets));
        s.append(perPacket(" header rounds", ph[PH_WINDOWS], ph[PH_HEADER_CYCLES], nsPerCycle, packets));
        s.append(perPacket(" acquire fences", ph[PH_WINDOWS], ph[PH_ACQUIRE_CYCLES], nsPerCycle, packets));
        s.append(perPacket(" body rounds", ph[PH_WINDOWS] - ph[PH_SHADOW_HITS], ph[PH_BODY_CYCLES], nsPerCycle, packets));
        s.append(String.format(Locale.ROOT, " shadow hits %d;", ph[PH_SHADOW_HITS]));
        s.append(perPacket(" take", ph[PH_PACKETS], ph[PH_TAKE_CYCLES], nsPerCycle, packets));
        s.append(perPacket(" run", ph[PH_PACKETS], ph[PH_RUN_CYCLES], nsPerCycle, packets));
        s.append(perPacket(" flushes", ph[PH_FLUSHES], ph[PH_FLUSH_CYCLES], nsPerCycle, packets));
        s.append(perPacket(" naps", ph[PH_NAPS], ph[PH_NAP_CYCLES], nsPerCycle, packets));
        s.append(perPacket(" stop checks", -1, ph[PH_STOP_CYCLES], nsPerCycle, packets));
        s.append(perPacket(" leads", -1, ph[PH_LEAD_CYCLES], nsPerCycle, packets));
        s.append(String.format(Locale.ROOT, " lead misses %d;", ph[PH_LEAD_MISSES]));
        long timed = ph[PH_POLL_CYCLES] + ph[PH_HEADER_CYCLES] + ph[PH_ACQUIRE_CYCLES] + ph[PH_BODY_CYCLES]
                + ph[PH_TAKE_CYCLES] + ph[PH_RUN_CYCLES] + ph[PH_FLUSH_CYCLES] + ph[PH_NAP_CYCLES] + ph[PH_STOP_CYCLES]
                + ph[PH_LEAD_CYCLES];
        s.append(perPacket(" untimed", -1, ph[PH_CYCLES] - timed, nsPerCycle, packets));   // barriers, loop, launch
        return s.toString();
    }

    private static String perPacket(String what, long count, long cycles, double nsPerCycle, long packets) {
        String n = count < 0 ? "" : " " + count + " x " + (count == 0 ? 0 : Math.round(cycles * nsPerCycle / count)) + " ns";
        return String.format(Locale.ROOT, "%s%s = %.0f ns/packet;", what, n, cycles * nsPerCycle / packets);
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

package org.hsa4j.cuda;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.hsa4j.packet.FenceScope;
import org.hsa4j.packet.KernelDispatchPacket;
import org.hsa4j.packet.PacketHeader;
import org.hsa4j.packet.PacketType;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.signal.Signal;

/**
 * A GPU experiment, not a test: runs the same round trips and batches of empty dispatches on
 * resident processors built from the processor sources named on the command line (variants of
 * {@code hsa4j_resident.cu} compiled with NVRTC, or whole programs as PTX, cubin or fatbin files; {@code builtin}
 * names the checked-in one), interleaved, and prints
 * each one's round-trip median, batched throughput and phase timer, so two designs are compared
 * in one run on one card. Usage: {@code run java org.hsa4j.cuda.ResidentVariantProbe builtin exp/a.cu ...}
 */
public final class ResidentVariantProbe {
    private static final int TRIPS = 3000;
    private static final int BATCHES = 40;
    private static final int BATCH = 256;

    public static void main(String[] args) throws Exception {
        try (GpuFixture gpu = new GpuFixture()) {
            for (int round = 0; round < 2; round++) {
                for (String a : args) {
                    CudaResidentProgram p = a.equals("builtin") ? CudaResidentProgram.builtin(gpu.agent)
                            : a.endsWith(".cu") ? CudaResidentProgram.withProcessor(gpu.agent, Files.readString(Path.of(a)))
                            : CudaResidentProgram.fromCodeObject(gpu.agent, CudaCodeObject.fromFile(Path.of(a)));
                    System.out.println("round " + round + " " + a + ": " + measure(gpu, p));
                }
            }
        }
    }

    private static String measure(GpuFixture gpu, CudaResidentProgram p) {
        Queue q = gpu.agent.createResidentQueue(1024, QueueType.SINGLE, (e, queue) -> System.out.println("queue error: " + e),
                p, CudaResidentOptions.DEFAULTS.withIdleNanos(TimeUnit.SECONDS.toNanos(60)));
        CudaResidentProcessor processor = gpu.agent.residentProcessor(q);
        long empty = p.kernelObject("hsa4j_r_empty");
        Signal s = gpu.agent.createSignal(1);
        long[] trip = new long[TRIPS];
        long[] call = new long[TRIPS];
        for (int i = 0; i < TRIPS; i++) {
            s.storeRelaxed(1);
            long t0 = System.nanoTime();
            q.launch(empty).grid(1).workgroup(1).kernarg(0).completion(s).dispatch();
            call[i] = System.nanoTime() - t0;
            spinZero(s);
            trip[i] = System.nanoTime() - t0;
        }
        Arrays.sort(trip);
        Arrays.sort(call);
        // the launch call's steps, through the raw API (the shadow is then copied at the doorbell)
        long[][] step = new long[5][TRIPS];
        short hdr = PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.SYSTEM);
        KernelDispatchPacket kp = new KernelDispatchPacket();
        for (int i = 0; i < TRIPS; i++) {
            s.storeRelaxed(1);
            long t0 = System.nanoTime();
            long id = q.reserveSlot();
            long t1 = System.nanoTime();
            kp.wrap(q.ring(), q.slotOffset(id)).workgroupSize(1, 1, 1).gridSize(1, 1, 1).privateSegmentSize(0)
                    .groupSegmentSize(0).kernelObject(empty).kernargAddress(0).completionSignal(s.handle()).clearReserved();
            long t2 = System.nanoTime();
            kp.publish(hdr, 1);
            long t3 = System.nanoTime();
            q.ringDoorbell(id);
            long t4 = System.nanoTime();
            spinZero(s);
            long t5 = System.nanoTime();
            step[0][i] = t1 - t0;
            step[1][i] = t2 - t1;
            step[2][i] = t3 - t2;
            step[3][i] = t4 - t3;
            step[4][i] = t5 - t0;
        }
        Object[] p50 = new Object[5];
        for (int k = 0; k < 5; k++) {
            Arrays.sort(step[k]);
            p50[k] = step[k][TRIPS / 2];
        }
        String rawSteps = String.format("raw steps p50 ns: reserve %d, body %d, header %d, doorbell %d, round trip %d; ", p50);
        short plain = PacketHeader.of(PacketType.KERNEL_DISPATCH, false, FenceScope.SYSTEM, FenceScope.NONE);
        short last = PacketHeader.of(PacketType.KERNEL_DISPATCH, true, FenceScope.SYSTEM, FenceScope.SYSTEM);
        KernelDispatchPacket k = new KernelDispatchPacket();
        long best = Long.MAX_VALUE;
        for (int b = 0; b < BATCHES; b++) {
            s.storeRelaxed(1);
            long t0 = System.nanoTime();
            long first = q.addWriteIndexScacqScrel(BATCH);
            q.waitForSpace(first + BATCH - 1);
            for (int i = 0; i < BATCH; i++) {
                k.wrap(q.ring(), q.slotOffset(first + i)).workgroupSize(1, 1, 1).gridSize(1, 1, 1).privateSegmentSize(0)
                        .groupSegmentSize(0).kernelObject(empty).kernargAddress(0)
                        .completionSignal(i == BATCH - 1 ? s.handle() : 0).publish(i == BATCH - 1 ? last : plain, 1);
            }
            q.ringDoorbell(first + BATCH - 1);
            spinZero(s);
            best = Math.min(best, System.nanoTime() - t0);
        }
        // two signalled dispatches in flight: the next is published before the last one completes
        s.storeRelaxed(TRIPS);
        long p0 = System.nanoTime();
        for (int i = 0; i < TRIPS; i++) {
            q.launch(empty).grid(1).workgroup(1).kernarg(0).completion(s).dispatch();
            spinAtMost(s, TRIPS - i + 1);
        }
        spinZero(s);
        long piped = System.nanoTime() - p0;
        q.destroy();
        long[] ph = processor.phases();
        return rawSteps + String.format("launch call p50 %.0f ns p90 %.0f ns; ", call[TRIPS / 2] * 1.0, call[TRIPS * 9 / 10] * 1.0) + String.format("round trip p50 %.2f us p10 %.2f us mean %.2f us; batch of %d best %.0f k/s (%.2f us/packet); two in flight %.2f us/packet%n    %s",
                trip[TRIPS / 2] / 1e3, trip[TRIPS / 10] / 1e3, Arrays.stream(trip).average().orElse(0) / 1e3, BATCH, BATCH * 1e6 / best, best / 1e3 / BATCH,
                piped / 1e3 / TRIPS, ResidentLayout.phaseReport(ph));
    }

    private static void spinZero(Signal s) {
        spinAtMost(s, 0);
    }

    private static void spinAtMost(Signal s, long most) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (s.loadScacquire() > most) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("signal still " + s.loadScacquire() + " after 10 s");
            }
            Thread.onSpinWait();
        }
    }
}

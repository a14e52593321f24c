package org.hsa4j.services.rpc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

import org.hsa4j.kernel.WorkItem;

/**
 * Batched calls for a wavefront or a whole workgroup, made cooperatively by its work-items (in a
 * kernel whose descriptor declares barriers, with {@link #groupBytes} bytes of group segment at
 * {@code groupOffset}). Every work-item of the workgroup calls {@link #call} with the same opcode:
 *
 * <ol>
 * <li>each stages its eight arguments in its slot of the group segment, then waits at a barrier;
 * <li>the leader of each batch (the first work-item of each wavefront, or work-item 0 for the
 *     whole workgroup) opens one call per {@link RpcClient#lanes()} work-items, with one lane per
 *     work-item, and copies arguments in and results and status out: many lanes, one round trip;
 * <li>after a second barrier each work-item reads its results and the status of its batch.
 * </ol>
 * A port is held only between the barriers, by a work-item that waits for nobody but the server,
 * so the batching keeps the rule of {@link RpcCall}.
 */
public final class GroupCall {
    /** Who sends a batch. */
    public enum Scope {
        /** The first work-item of each wavefront (groups of {@link RpcClient#lanes()} work-items) sends its wavefront's lanes. */
        WAVEFRONT,
        /** Work-item 0 sends the lanes of the whole workgroup, a port's worth at a time. */
        WORKGROUP
    }

    /** Bytes per work-item in the group segment: eight arguments/results and the status. */
    public static final int SLOT_BYTES = RpcLayout.LANE_BYTES + 8;

    private final RpcClient client;
    private final Scope scope;
    private final long groupOffset;

    /** Batches calls of {@code client} by {@code scope}, staging in the group segment at {@code groupOffset}. */
    public GroupCall(RpcClient client, Scope scope, long groupOffset) {
        this.client = Objects.requireNonNull(client, "client");
        this.scope = Objects.requireNonNull(scope, "scope");
        if (groupOffset < 0 || (groupOffset & 7) != 0) {
            throw new IllegalArgumentException("group offset must be a non-negative multiple of 8, was " + groupOffset);
        }
        this.groupOffset = groupOffset;
    }

    /** Group segment bytes a workgroup of {@code workItems} work-items needs. */
    public static long groupBytes(int workItems) {
        return (long) workItems * SLOT_BYTES;
    }

    /**
     * Makes this work-item's part of a batched call: {@code inOut} holds up to eight arguments and
     * receives the eight results when the returned status is OK. Every work-item of the workgroup
     * must call this (it contains two workgroup barriers).
     */
    public RpcStatus call(WorkItem wi, int opcode, long[] inOut) {
        int size = wi.currentWorkgroupSize(0) * wi.currentWorkgroupSize(1) * wi.currentWorkgroupSize(2);
        int id = wi.localId(0) + wi.currentWorkgroupSize(0) * (wi.localId(1) + wi.currentWorkgroupSize(1) * wi.localId(2));
        MemorySegment group = wi.groupSegment();
        long mine = groupOffset + (long) id * SLOT_BYTES;
        for (int i = 0; i < RpcLayout.LANE_WORDS; i++) {
            group.set(ValueLayout.JAVA_LONG, mine + 8L * i, i < inOut.length ? inOut[i] : 0);
        }
        wi.barrier().await();
        int batch = client.lanes();
        if (scope == Scope.WORKGROUP ? id == 0 : id % batch == 0) {
            int end = scope == Scope.WORKGROUP ? size : Math.min(size, id + batch);
            for (int first = id; first < end; first += batch) {
                sendBatch(wi, opcode, group, first, Math.min(batch, end - first));
            }
        }
        wi.barrier().await();
        RpcStatus status = RpcStatus.of((int) group.get(ValueLayout.JAVA_LONG, mine + RpcLayout.LANE_BYTES));
        if (status == RpcStatus.OK) {
            for (int i = 0; i < Math.min(inOut.length, RpcLayout.LANE_WORDS); i++) {
                inOut[i] = group.get(ValueLayout.JAVA_LONG, mine + 8L * i);
            }
        }
        return status;
    }

    private void sendBatch(WorkItem wi, int opcode, MemorySegment group, int first, int count) {
        long mask = count == 64 ? -1L : (1L << count) - 1;
        try (RpcCall c = client.open(wi, opcode, mask)) {
            for (int lane = 0; lane < count; lane++) {
                long slot = groupOffset + (long) (first + lane) * SLOT_BYTES;
                for (int i = 0; i < RpcLayout.LANE_WORDS; i++) {
                    c.arg(lane, i, group.get(ValueLayout.JAVA_LONG, slot + 8L * i));
                }
            }
            RpcStatus s = c.finish();
            for (int lane = 0; lane < count; lane++) {
                long slot = groupOffset + (long) (first + lane) * SLOT_BYTES;
                if (s == RpcStatus.OK) {
                    for (int i = 0; i < RpcLayout.LANE_WORDS; i++) {
                        group.set(ValueLayout.JAVA_LONG, slot + 8L * i, c.result(lane, i));
                    }
                }
                group.set(ValueLayout.JAVA_LONG, slot + RpcLayout.LANE_BYTES, s.code());
            }
        }
    }
}

package org.hsa4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Work-item ids and sizes in 1, 2 and 3 dimensions, with and without partial last workgroups. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WorkItemGeometryTest {
    private static HsaRuntime rt;

    @BeforeAll
    static void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
    }

    @AfterAll
    static void stop() {
        rt.close();
    }

    /** What one work-item saw of itself. */
    static final class Seen {
        final int[] count;
        final int[][] local;
        final long[][] group;
        final long[][] global;
        final int[][] current;
        final int[][] workgroup;
        final long[][] grid;
        final long[][] groups;
        final int[] flatLocal;
        final int[] currentFlatLocal;
        final long[] flatGroup;
        final int[] dims;

        Seen(int n) {
            count = new int[n];
            local = new int[n][3];
            group = new long[n][3];
            global = new long[n][3];
            current = new int[n][3];
            workgroup = new int[n][3];
            grid = new long[n][3];
            groups = new long[n][3];
            flatLocal = new int[n];
            currentFlatLocal = new int[n];
            flatGroup = new long[n];
            dims = new int[n];
        }

        void record(WorkItem wi) {
            int i = (int) wi.flatGlobalId();
            count[i]++;
            for (int d = 0; d < 3; d++) {
                local[i][d] = wi.localId(d);
                group[i][d] = wi.groupId(d);
                global[i][d] = wi.globalId(d);
                current[i][d] = wi.currentWorkgroupSize(d);
                workgroup[i][d] = wi.workgroupSize(d);
                grid[i][d] = wi.gridSize(d);
                groups[i][d] = wi.gridGroups(d);
            }
            flatLocal[i] = wi.flatLocalId();
            currentFlatLocal[i] = wi.currentFlatLocalId();
            flatGroup[i] = wi.flatGroupId();
            dims[i] = wi.dimensions();
        }
    }

    static Stream<Arguments> geometries() {
        return Stream.of(
                Arguments.of(1, new long[] {1024, 1, 1}, new int[] {64, 1, 1}),
                Arguments.of(1, new long[] {1000, 1, 1}, new int[] {64, 1, 1}),
                Arguments.of(1, new long[] {5, 1, 1}, new int[] {8, 1, 1}),
                Arguments.of(2, new long[] {32, 16, 1}, new int[] {8, 4, 1}),
                Arguments.of(2, new long[] {37, 21, 1}, new int[] {8, 4, 1}),
                Arguments.of(3, new long[] {8, 6, 4}, new int[] {4, 3, 2}),
                Arguments.of(3, new long[] {10, 7, 5}, new int[] {4, 3, 2}));
    }

    @ParameterizedTest(name = "{0}D grid {1} workgroup {2}")
    @MethodSource("geometries")
    void shouldGiveEveryWorkItemItsIdsAndSizes(int dims, long[] grid, int[] wg) {
        int n = (int) (grid[0] * grid[1] * grid[2]);
        Seen seen = new Seen(n);
        long kernel = rt.createExecutable().define("record", KernelDescriptor.EMPTY, seen::record).freeze()
                .symbol("record").kernelObject();
        Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        Signal done = rt.createSignal(1);
        Submit.kernel(q, kernel).grid(dims, grid[0], grid[1], grid[2]).workgroup(wg[0], wg[1], wg[2])
                .completion(done).submit();
        Await.completion(done);
        q.destroy();

        long[] groupCount = new long[3];
        for (int d = 0; d < 3; d++) {
            groupCount[d] = (grid[d] + wg[d] - 1) / wg[d];
        }
        for (int z = 0; z < grid[2]; z++) {
            for (int y = 0; y < grid[1]; y++) {
                for (int x = 0; x < grid[0]; x++) {
                    long[] abs = {x, y, z};
                    int i = (int) (x + grid[0] * (y + grid[1] * z));
                    String at = "work-item (" + x + "," + y + "," + z + ")";
                    assertEquals(1, seen.count[i], at + " ran");
                    assertEquals(dims, seen.dims[i], at);
                    int[] cur = new int[3];
                    int[] lid = new int[3];
                    for (int d = 0; d < 3; d++) {
                        long g = abs[d] / wg[d];
                        lid[d] = (int) (abs[d] % wg[d]);
                        cur[d] = (int) Math.min(wg[d], grid[d] - g * wg[d]);
                        assertEquals(lid[d], seen.local[i][d], at + " localId(" + d + ")");
                        assertEquals(g, seen.group[i][d], at + " groupId(" + d + ")");
                        assertEquals(abs[d], seen.global[i][d], at + " globalId(" + d + ")");
                        assertEquals(cur[d], seen.current[i][d], at + " currentWorkgroupSize(" + d + ")");
                        assertEquals(wg[d], seen.workgroup[i][d], at + " workgroupSize(" + d + ")");
                        assertEquals(grid[d], seen.grid[i][d], at + " gridSize(" + d + ")");
                        assertEquals(groupCount[d], seen.groups[i][d], at + " gridGroups(" + d + ")");
                    }
                    assertEquals(lid[0] + wg[0] * (lid[1] + wg[1] * lid[2]), seen.flatLocal[i], at + " flatLocalId");
                    assertEquals(lid[0] + cur[0] * (lid[1] + cur[1] * lid[2]), seen.currentFlatLocal[i],
                            at + " currentFlatLocalId");
                    long[] g = {abs[0] / wg[0], abs[1] / wg[1], abs[2] / wg[2]};
                    assertEquals(g[0] + groupCount[0] * (g[1] + groupCount[1] * g[2]), seen.flatGroup[i],
                            at + " flatGroupId");
                }
            }
        }
    }
}

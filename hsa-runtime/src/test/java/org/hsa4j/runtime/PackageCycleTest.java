package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

import org.hsa4j.queue.Queue;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * hsa-runtime's packages form no cycle (issue 23 part 2): the JDK's own jdeps reads the module's
 * compiled classes ({@code jdeps -verbose:package}), and every strongly connected set of more than
 * one org.hsa4j package is a failure that names its packages.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PackageCycleTest {
    private static final Pattern EDGE = Pattern.compile("^\\s+(org\\.hsa4j\\.\\S+)\\s+->\\s+(org\\.hsa4j\\.\\S+)\\s");

    @Test
    void hsaRuntimePackagesFormNoCycle() throws Exception {
        // a jlinked runtime (the GPU machine's bundle) has no jdeps; every JDK has it
        Assumptions.assumeTrue(ToolProvider.findFirst("jdeps").isPresent(),
                "skipped: this runtime has no jdeps tool (a jlinked JRE, not a JDK)");
        Map<String, Set<String>> graph = packageGraph(classesOf(Queue.class));
        assertTrue(graph.getOrDefault("org.hsa4j.agent", Set.of()).contains("org.hsa4j.queue"),
                "jdeps output was not read (no agent -> queue edge): " + graph);
        assertEquals(List.of(), cycles(graph), "package cycles in hsa-runtime");
    }

    @Test
    void cycleFinderReportsEachCycleOnce() {
        Map<String, Set<String>> graph = new TreeMap<>();
        graph.put("a", Set.of("b"));
        graph.put("b", Set.of("c", "d"));
        graph.put("c", Set.of("a"));
        graph.put("d", Set.of("e"));
        graph.put("e", Set.of());
        assertEquals(List.of(new TreeSet<>(Set.of("a", "b", "c"))), cycles(graph));
    }

    /** The directory or jar {@code type} was loaded from. */
    static Path classesOf(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** Package -> the other org.hsa4j packages it uses, as {@code jdeps -verbose:package} prints them. */
    static Map<String, Set<String>> packageGraph(Path classes) {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("no jdeps in this JDK"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:package", "-filter:none",
                classes.toString());
        assertEquals(0, rc, "jdeps failed: " + err);
        Map<String, Set<String>> graph = new TreeMap<>();
        for (String line : out.toString().split("\\R")) {
            Matcher m = EDGE.matcher(line);
            if (m.find() && !m.group(1).equals(m.group(2))) {
                graph.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
            }
        }
        return graph;
    }

    /** The strongly connected sets of more than one node (Tarjan's algorithm), each sorted. */
    static List<Set<String>> cycles(Map<String, Set<String>> graph) {
        return new Tarjan(graph).run();
    }

    private static final class Tarjan {
        private final Map<String, Set<String>> graph;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> low = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final Set<String> onStack = new TreeSet<>();
        private final List<Set<String>> found = new ArrayList<>();

        Tarjan(Map<String, Set<String>> graph) {
            this.graph = graph;
        }

        List<Set<String>> run() {
            for (String node : graph.keySet()) {
                if (!index.containsKey(node)) {
                    visit(node);
                }
            }
            return found;
        }

        private void visit(String node) {
            index.put(node, index.size());
            low.put(node, index.get(node));
            stack.push(node);
            onStack.add(node);
            for (String next : graph.getOrDefault(node, Set.of())) {
                if (!index.containsKey(next)) {
                    visit(next);
                    low.put(node, Math.min(low.get(node), low.get(next)));
                } else if (onStack.contains(next)) {
                    low.put(node, Math.min(low.get(node), index.get(next)));
                }
            }
            if (low.get(node).equals(index.get(node))) {
                Set<String> component = new TreeSet<>();
                String member;
                do {
                    member = stack.pop();
                    onStack.remove(member);
                    component.add(member);
                } while (!member.equals(node));
                if (component.size() > 1) {
                    found.add(component);
                }
            }
        }
    }
}

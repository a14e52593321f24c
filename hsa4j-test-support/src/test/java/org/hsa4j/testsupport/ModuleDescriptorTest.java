package org.hsa4j.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

/**
 * Module org.hsa4j.testsupport exports exactly the packages its users need (issue 23 part 2): an export added by
 * accident, or one lost, fails here. Reads the compiled descriptor (module-info.class) of the
 * classes under test.
 */
class ModuleDescriptorTest {
    /** An unqualified export. */
    private static final Set<String> ALL = Set.of();

    @Test
    void exportsOnlyTheApiPackages() {
        Map<String, Set<String>> expected = Map.of("org.hsa4j.testsupport", ALL);
        assertEquals(new TreeMap<>(expected), exports(descriptor()));
    }

    @Test
    void isNamedOrgHsa4jTestsupport() {
        assertEquals("org.hsa4j.testsupport", descriptor().name());
    }

    /** The descriptor of the module SvmSlots was loaded from (its classes directory or jar). */
    private static ModuleDescriptor descriptor() {
        try {
            Path classes = Path.of(SvmSlots.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return ModuleFinder.of(classes).findAll().iterator().next().descriptor();
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /** Exported package -> the modules it is exported to (empty: to all). */
    private static Map<String, Set<String>> exports(ModuleDescriptor d) {
        Map<String, Set<String>> out = new TreeMap<>();
        for (ModuleDescriptor.Exports e : d.exports()) {
            out.put(e.source(), new TreeSet<>(e.targets()));
        }
        return out;
    }
}

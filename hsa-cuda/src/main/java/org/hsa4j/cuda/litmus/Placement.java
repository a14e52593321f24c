package org.hsa4j.cuda.litmus;

import java.util.ArrayList;
import java.util.List;

/**
 * Where each role of a test runs: one letter per role, G for a GPU thread and H for a host thread
 * ("GH": role 0 on the GPU, role 1 on the host).
 *
 * @param code one G or H per role
 */
record Placement(String code) {
    Placement {
        if (code.isEmpty() || !code.chars().allMatch(c -> c == 'G' || c == 'H')) {
            throw new IllegalArgumentException("a placement is one G (GPU) or H (host) per role: " + code);
        }
    }

    /** The roles the GPU plays, ascending. */
    List<Integer> gpuRoles() {
        return roles('G');
    }

    /** The roles host threads play, ascending. */
    List<Integer> hostRoles() {
        return roles('H');
    }

    private List<Integer> roles(char where) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < code.length(); i++) {
            if (code.charAt(i) == where) {
                out.add(i);
            }
        }
        return out;
    }

    /** The placements run for a test of {@code roles} roles: every mix of one host role with GPU roles, and all-GPU. */
    static List<Placement> forRoles(int roles) {
        return switch (roles) {
            case 2 -> List.of(new Placement("GH"), new Placement("HG"), new Placement("GG"));
            case 3 -> List.of(new Placement("HGG"), new Placement("GHG"), new Placement("GGH"), new Placement("GGG"));
            default -> List.of(new Placement("G".repeat(roles)));
        };
    }
}

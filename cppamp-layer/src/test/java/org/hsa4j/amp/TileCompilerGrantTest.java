package org.hsa4j.amp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.invoke.MethodHandles;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;

/** Amp.grantTileCompiler takes only a lookup that may define classes in its module. */
class TileCompilerGrantTest {
    @Test
    void shouldRefuseALookupWithoutFullPrivilegeAccess() {
        HsaException e = assertThrows(HsaException.class, () -> Amp.grantTileCompiler(MethodHandles.publicLookup()));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRefuseANullLookup() {
        HsaException e = assertThrows(HsaException.class, () -> Amp.grantTileCompiler(null));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldAcceptThisModulesOwnLookup() {
        Amp.grantTileCompiler(MethodHandles.lookup());
    }
}

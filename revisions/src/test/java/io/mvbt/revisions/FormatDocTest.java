// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** docs/format.md names constants of the code with their values; they must agree. */
class FormatDocTest {
    private static final Pattern CONSTANT = Pattern.compile(
            "`(MetaPage|PageHeader|Node|Overflow|FreeMap|RedoLog|RedoRecord|NamedRevisions)\\.([A-Z_]+)` (?:\\| )?=? ?(\\d+)");

    @Test
    void formatDocumentMatchesTheCode() throws Exception {
        String doc = Files.readString(Path.of("../docs/format.md"));
        Matcher m = CONSTANT.matcher(doc);
        int checked = 0;
        while (m.find()) {
            Class<?> owner = switch (m.group(1)) {
                case "MetaPage" -> MetaPage.class;
                case "FreeMap" -> FreeMap.class;
                case "RedoLog" -> RedoLog.class;
                case "RedoRecord" -> RedoRecord.class;
                case "NamedRevisions" -> NamedRevisions.class;
                case "PageHeader" -> io.mvbt.btree.PageHeader.class;
                case "Node" -> io.mvbt.btree.Node.class;
                default -> io.mvbt.btree.Overflow.class;
            };
            Field f = owner.getDeclaredField(m.group(2));
            f.setAccessible(true);
            assertEquals(Long.parseLong(m.group(3)), ((Number) f.get(null)).longValue(),
                    m.group(1) + "." + m.group(2) + " in docs/format.md");
            checked++;
        }
        assertTrue(checked >= 30, "only " + checked + " constants found in docs/format.md");
    }

    @Test
    void theTitleNamesTheFormatTheCodeWrites() throws Exception {
        String title = Files.readAllLines(Path.of("../docs/format.md")).get(0);
        assertEquals("# mvbt file format, version " + MetaPage.FORMAT_VERSION, title);
    }
}

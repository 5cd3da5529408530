import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.kpc.Counters;
import org.kpc.Region;
import org.kpc.Sampler;

/**
 * A benchmark-shaped measurement: each operation writes to N fresh pages, so it should cost
 * about N page faults. Prints page-faults and task-clock per operation for N = 16 and 256.
 * Run by CTest as java_touch_pages, which checks page-faults/op against N.
 */
public class TouchPages {
    static final int PAGE = 4096; // Linux x86-64 and most aarch64 kernels
    static final int OPS = 50;

    public static void main(String[] args) throws IOException {
        try (Sampler sampler = new Sampler()) {
            for (int pages : new int[] {16, 256}) {
                run(sampler, pages);
            }
        }
    }

    static void run(Sampler sampler, int pages) throws IOException {
        // A private file mapping with a fresh page for every write of every operation: the
        // first write to each page faults once and copies it (a shared mapping may map a
        // whole large folio of the page cache in one fault on newer kernels).
        Path file = Files.createTempFile("kpc-touch-pages", ".bin");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
             Counters counters = sampler.counters("page-faults", "task-clock")) {
            MappedByteBuffer map = ch.map(FileChannel.MapMode.PRIVATE, 0, (long) OPS * pages * PAGE);

            Region region = counters.begin(true);       // true: subtract an empty region's cost
            for (int op = 0; op < OPS; op++) {
                for (int p = 0; p < pages; p++) {
                    map.put((op * pages + p) * PAGE, (byte) 1);
                }
            }
            double[] perOp = Region.perOp(region.end(), OPS);

            System.out.printf("pages=%d: page-faults/op %.2f, task-clock/op %.0f ns%n",
                    pages, perOp[0], perOp[1]);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}

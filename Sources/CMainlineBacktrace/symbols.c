// Naming code addresses for `LoopBacktrace`: which image holds an address (the dynamic linker), which function
// (the image's ELF symbol table), and its Swift name (the runtime's demangler). Runs on the capturing thread, never in
// a signal handler.
//
// `dladdr` alone is not enough: it sees only the dynamic symbol table, and an executable exports few of its functions
// (a SwiftPM test binary: ~1,900 of ~95,000), so most Swift frames of the program itself would have no name. The
// static `.symtab` has them all unless the file was stripped.

#define _GNU_SOURCE
#include "CMainlineBacktrace.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bool mainline_image_of_address(uintptr_t address, mainline_image *image) {
    Dl_info info;
    struct link_map *map = NULL;
    memset(image, 0, sizeof *image);
    if (dladdr1((const void *)address, &info, (void **)&map, RTLD_DL_LINKMAP) == 0 || map == NULL) return false;
    image->bias = (uintptr_t)map->l_addr;
    image->path = map->l_name != NULL ? map->l_name : "";
    image->is_main_program = map->l_name == NULL || map->l_name[0] == '\0';
    image->exported_symbol = info.dli_sname;
    image->exported_symbol_address = (uintptr_t)info.dli_saddr;
    return true;
}

// One function: where it starts, how long it is (0 when the table does not say), and its name's offset in the
// string table. The top bit of `size_and_binding` marks a local symbol, so that a global alias wins a tie.
typedef struct {
    uint64_t value;
    uint32_t size_and_binding;
    uint32_t name;
} elf_function;

#define LOCAL_BIT 0x80000000u

struct mainline_elf_symbols {
    elf_function *functions;
    size_t count;
    const char *strings;
    size_t strings_size;
    void *mapping;
    size_t mapping_size;
};

static int compare_functions(const void *a, const void *b) {
    const elf_function *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? -1 : 1;
    uint32_t x_local = x->size_and_binding & LOCAL_BIT, y_local = y->size_and_binding & LOCAL_BIT;
    if (x_local != y_local) return x_local ? 1 : -1;
    return x->name < y->name ? -1 : x->name > y->name;
}

static bool read_exactly(int fd, void *buffer, size_t size, uint64_t offset) {
    uint8_t *bytes = buffer;
    while (size > 0) {
        ssize_t n = pread(fd, bytes, size, (off_t)offset);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        bytes += n;
        size -= (size_t)n;
        offset += (uint64_t)n;
    }
    return true;
}

// Reads the functions of symbol table `table` (its string table is `strings`) into `out`. Returns false when the
// table is malformed or holds more than `max_symbols` functions.
static bool read_functions(
    int fd,
    const Elf64_Shdr *table,
    const Elf64_Shdr *strings,
    size_t max_symbols,
    elf_function **out,
    size_t *out_count
) {
    if (table->sh_entsize != sizeof(Elf64_Sym)) return false;
    size_t total = table->sh_size / sizeof(Elf64_Sym);
    enum { CHUNK = 2048 };
    Elf64_Sym *chunk = malloc(CHUNK * sizeof(Elf64_Sym));
    elf_function *functions = NULL;
    size_t count = 0, capacity = 0;
    bool ok = chunk != NULL;
    for (size_t first = 0; ok && first < total; first += CHUNK) {
        size_t n = total - first < CHUNK ? total - first : CHUNK;
        if (!read_exactly(fd, chunk, n * sizeof(Elf64_Sym), table->sh_offset + first * sizeof(Elf64_Sym))) {
            ok = false;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            const Elf64_Sym *symbol = &chunk[i];
            unsigned type = ELF64_ST_TYPE(symbol->st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || symbol->st_shndx == SHN_UNDEF ||
                symbol->st_value == 0 || symbol->st_name == 0 || symbol->st_name >= strings->sh_size) {
                continue;
            }
            if (count == max_symbols) {
                ok = false;
                break;
            }
            if (count == capacity) {
                size_t grown = capacity == 0 ? 1024 : capacity * 2;
                if (grown > max_symbols) grown = max_symbols;
                elf_function *bigger = realloc(functions, grown * sizeof *functions);
                if (bigger == NULL) {
                    ok = false;
                    break;
                }
                functions = bigger;
                capacity = grown;
            }
            uint64_t size = symbol->st_size < LOCAL_BIT ? symbol->st_size : LOCAL_BIT - 1;
            bool local = ELF64_ST_BIND(symbol->st_info) == STB_LOCAL;
            functions[count++] = (elf_function){
                .value = symbol->st_value,
                .size_and_binding = (uint32_t)size | (local ? LOCAL_BIT : 0),
                .name = (uint32_t)symbol->st_name,
            };
        }
    }
    free(chunk);
    if (!ok || count == 0) {
        free(functions);
        return false;
    }
    qsort(functions, count, sizeof *functions, compare_functions);
    // One entry per address: the first after sorting (a global name before a local alias).
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        if (kept > 0 && functions[kept - 1].value == functions[i].value) continue;
        functions[kept++] = functions[i];
    }
    elf_function *fitted = realloc(functions, kept * sizeof *functions);
    *out = fitted != NULL ? fitted : functions;
    *out_count = kept;
    return true;
}

mainline_elf_symbols *mainline_elf_symbols_open(const char *path, size_t max_symbols) {
#if UINTPTR_MAX != UINT64_MAX
    (void)path;
    (void)max_symbols;
    return NULL;  // 64-bit ELF only.
#else
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    mainline_elf_symbols *result = NULL;
    Elf64_Shdr *sections = NULL;
    struct stat file;
    Elf64_Ehdr header;
    if (fstat(fd, &file) != 0 || !S_ISREG(file.st_mode) || !read_exactly(fd, &header, sizeof header, 0)) goto done;
    if (memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        header.e_ident[EI_DATA] != ELFDATA2LSB ||
#else
        header.e_ident[EI_DATA] != ELFDATA2MSB ||
#endif
        header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum == 0 || header.e_shnum >= SHN_LORESERVE ||
        header.e_shoff == 0 || header.e_shoff > (uint64_t)file.st_size) {
        goto done;
    }
    sections = malloc(header.e_shnum * sizeof(Elf64_Shdr));
    if (sections == NULL ||
        !read_exactly(fd, sections, header.e_shnum * sizeof(Elf64_Shdr), header.e_shoff)) {
        goto done;
    }
    // `.symtab` first (every function, unless stripped); `.dynsym` (exported ones) when it is missing or too big.
    const uint32_t kinds[2] = {SHT_SYMTAB, SHT_DYNSYM};
    for (int k = 0; k < 2 && result == NULL; k++) {
        for (unsigned i = 0; i < header.e_shnum && result == NULL; i++) {
            const Elf64_Shdr *table = &sections[i];
            if (table->sh_type != kinds[k] || table->sh_link >= header.e_shnum) continue;
            const Elf64_Shdr *strings = &sections[table->sh_link];
            if (strings->sh_type != SHT_STRTAB || strings->sh_size == 0 ||
                strings->sh_offset > (uint64_t)file.st_size ||
                strings->sh_size > (uint64_t)file.st_size - strings->sh_offset ||
                table->sh_offset > (uint64_t)file.st_size ||
                table->sh_size > (uint64_t)file.st_size - table->sh_offset) {
                continue;
            }
            long page = sysconf(_SC_PAGESIZE);
            uint64_t map_offset = strings->sh_offset & ~((uint64_t)page - 1);
            size_t map_size = (size_t)(strings->sh_offset - map_offset + strings->sh_size);
            void *mapping = mmap(NULL, map_size, PROT_READ, MAP_PRIVATE, fd, (off_t)map_offset);
            if (mapping == MAP_FAILED) continue;
            const char *names = (const char *)mapping + (strings->sh_offset - map_offset);
            elf_function *functions = NULL;
            size_t count = 0;
            // Every name must end inside the table: its last byte is a NUL.
            if (names[strings->sh_size - 1] != '\0' ||
                !read_functions(fd, table, strings, max_symbols, &functions, &count)) {
                munmap(mapping, map_size);
                continue;
            }
            result = malloc(sizeof *result);
            if (result == NULL) {
                free(functions);
                munmap(mapping, map_size);
                break;
            }
            *result = (mainline_elf_symbols){
                .functions = functions,
                .count = count,
                .strings = names,
                .strings_size = strings->sh_size,
                .mapping = mapping,
                .mapping_size = map_size,
            };
        }
    }
done:
    free(sections);
    close(fd);
    return result;
#endif
}

void mainline_elf_symbols_close(mainline_elf_symbols *symbols) {
    if (symbols == NULL) return;
    free(symbols->functions);
    munmap(symbols->mapping, symbols->mapping_size);
    free(symbols);
}

size_t mainline_elf_symbols_memory(const mainline_elf_symbols *symbols) {
    return sizeof *symbols + symbols->count * sizeof(elf_function);
}

const char *mainline_elf_symbols_lookup(const mainline_elf_symbols *symbols, uint64_t file_address, uint64_t *start) {
    // The last function starting at or below the address.
    size_t low = 0, high = symbols->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (symbols->functions[middle].value <= file_address) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    if (low == 0) return NULL;
    const elf_function *function = &symbols->functions[low - 1];
    uint64_t size = function->size_and_binding & ~LOCAL_BIT;
    // Past its end: the address is in code no symbol covers (padding, a stripped local function).
    if (size != 0 && file_address - function->value >= size) return NULL;
    *start = function->value;
    return symbols->strings + function->name;
}

// Exported by libswiftCore, which every Swift program links.
extern char *swift_demangle(
    const char *mangled_name,
    size_t mangled_name_length,
    char *output_buffer,
    size_t *output_buffer_size,
    uint32_t flags
);

char *mainline_swift_demangle(const char *name) {
    return swift_demangle(name, strlen(name), NULL, NULL, 0);
}

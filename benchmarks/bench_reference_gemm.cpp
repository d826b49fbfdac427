// The reference interpreter's packed GEMM (double sums of float products) on the products ResNet-18's
// convolutions and ViT-B/16's projections make, on both cores: GFLOP/s per shape and per micro-kernel,
// best of five. Compare against the double FMA peak, half of bench_peak_flops' float figure.
// Usage: bench_reference_gemm
#include "runtime/reference/kernels/GemmKernel.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

using namespace portolan::runtime::kernels;

namespace {

struct Shape {
    const char *what;
    std::int64_t M, N, K;
};

double bestSeconds(const Shape &s, const std::vector<float> &a, const std::vector<float> &b, std::vector<float> &c)
{
    double best = 1e30;
    for (int i = 0; i < 5; ++i) {
        const auto start = std::chrono::steady_clock::now();
        gemmInDouble<float>({a.data(), s.K, 1}, {b.data(), s.N, 1}, s.M, s.N, s.K,
                            [&](std::int64_t row, std::int64_t col0, const double *sums, std::int64_t count) {
                                for (std::int64_t j = 0; j < count; ++j)
                                    c[static_cast<std::size_t>(row * s.N + col0 + j)] = static_cast<float>(sums[j]);
                            },
                            true);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

} // namespace

int main()
{
    const Shape shapes[] = {
        {"resnet18 stem 7x7", 64, 12544, 147},   {"resnet18 layer1 3x3", 64, 3136, 576},
        {"resnet18 layer3 3x3", 256, 196, 2304}, {"resnet18 layer4 3x3", 512, 49, 4608},
        {"vit qkv projection", 197, 2304, 768},  {"vit mlp up", 197, 3072, 768},
        {"vit mlp down", 197, 768, 3072},        {"vit attention scores", 197, 197, 64},
    };
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::printf("%-24s %6s %6s %6s", "product", "M", "N", "K");
    const char *kernels[] = {"avx512", "avx2", "plain"};
    for (const char *k : kernels)
        std::printf(" %10s", k);
    std::printf("   (GFLOP/s, double sums)\n");
    const std::string best = gemmMicroKernelName();
    for (const Shape &s : shapes) {
        std::vector<float> a(static_cast<std::size_t>(s.M * s.K)), b(static_cast<std::size_t>(s.K * s.N)),
            c(static_cast<std::size_t>(s.M * s.N));
        for (float &v : a)
            v = dist(rng);
        for (float &v : b)
            v = dist(rng);
        std::printf("%-24s %6lld %6lld %6lld", s.what, static_cast<long long>(s.M), static_cast<long long>(s.N),
                    static_cast<long long>(s.K));
        for (const char *k : kernels) {
            if (!useGemmMicroKernel(k)) {
                std::printf(" %10s", "-");
                continue;
            }
            const double seconds = bestSeconds(s, a, b, c);
            std::printf(" %10.1f", 2.0 * static_cast<double>(s.M * s.N * s.K) / seconds / 1e9);
        }
        std::printf("\n");
        useGemmMicroKernel(best);
    }
    return 0;
}

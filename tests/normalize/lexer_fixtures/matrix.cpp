// matrix.cpp -- a small dense matrix with a text format, for the linear-algebra lab.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lab {

constexpr std::size_t kMaxSize = 1'000'000;
constexpr double kEps = 1e-12;
constexpr unsigned kMask = 0xFF'FFu;

const char *const kHelp = R"(usage: matrix [file]
  reads rows like "1 2 3" (one row per line)
  a line "# ..." is a comment; C:\paths\are\fine here
)";
const std::string kPattern = R"re(^\s*(-?\d+(\.\d+)?)(\s+|$)"quoted")re";
const auto kGreeting = u8"h\u00e9llo";
const wchar_t kWide = L'x';

template <typename T>
class Matrix {
public:
    Matrix(std::size_t rows, std::size_t cols, T fill = T{})
        : rows_(rows), cols_(cols), data_(rows * cols, fill) {
        if (rows * cols > kMaxSize) throw std::length_error("matrix too large");
    }

    T &operator()(std::size_t r, std::size_t c) { return data_[r * cols_ + c]; }
    const T &operator()(std::size_t r, std::size_t c) const { return data_[r * cols_ + c]; }

    std::size_t rows() const noexcept { return rows_; }
    std::size_t cols() const noexcept { return cols_; }

    Matrix operator*(const Matrix &other) const {
        if (cols_ != other.rows_) throw std::invalid_argument("shape mismatch: '*'");
        Matrix out(rows_, other.cols_);
        for (std::size_t i = 0; i < rows_; ++i)
            for (std::size_t k = 0; k < cols_; ++k) {
                const T a = (*this)(i, k);
                if (a == T{}) continue;
                for (std::size_t j = 0; j < other.cols_; ++j) out(i, j) += a * other(k, j);
            }
        return out;
    }

    friend std::ostream &operator<<(std::ostream &os, const Matrix &m) {
        for (std::size_t i = 0; i < m.rows_; ++i) {
            for (std::size_t j = 0; j < m.cols_; ++j)
                os << std::setw(8) << m(i, j) << (j + 1 < m.cols_ ? ' ' : '\n');
        }
        return os;
    }

private:
    std::size_t rows_, cols_;
    std::vector<T> data_;
};

template <typename T>
Matrix<T> parse(std::istream &in) {
    std::vector<std::vector<T>> rows;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::vector<T> row;
        for (T x; fields >> x;) row.push_back(x);
        if (!rows.empty() && row.size() != rows.front().size())
            throw std::runtime_error("ragged row: \"" + line + "\"");
        rows.push_back(std::move(row));
    }
    Matrix<T> m(rows.size(), rows.empty() ? 0 : rows[0].size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        std::copy(rows[i].begin(), rows[i].end(), &m(i, 0));
    return m;
}

}  // namespace lab

int main(int argc, char *argv[]) {
    using lab::Matrix;
    if (argc > 2) {
        std::cerr << lab::kHelp;
        return 2;
    }
    auto m = lab::parse<double>(std::cin);
    auto square = [&m](auto scale) -> Matrix<double> {
        Matrix<double> s = m * m;
        for (std::size_t i = 0; i < s.rows(); ++i) s(i, i) *= scale;
        return s;
    };
    std::cout << square(0.5) << "eps=" << lab::kEps << ", mask=" << (lab::kMask >> 4) << '\n';
    static_assert(sizeof(int) >= 2, "int too small");
    return m.rows() == m.cols() ? 0 : 1;
}

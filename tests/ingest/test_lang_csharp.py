"""Golden test of C# extraction by the query engine (queries/csharp.scm)."""

from __future__ import annotations

from tests.ingest.langrows import calls, imports, inherits, parse, symbols

SOURCE = """\
using System;
using System.Collections.Generic;
using Json = Newtonsoft.Json.JsonConvert;

namespace Shop.Orders
{
    /// <summary>An order line.</summary>
    public class OrderService : ServiceBase, IOrderService
    {
        private readonly IRepository _repo;

        public OrderService(IRepository repo) { _repo = repo; }

        public decimal Total(Order order)
        {
            var lines = _repo.Lines(order.Id);
            Log("total");
            return new Calculator().Sum(lines);
        }
    }

    public interface IOrderService { decimal Total(Order order); }

    public struct Money { public decimal Amount; }

    public enum Status { Open, Closed }

    [TestFixture]
    public class OrderServiceTests
    {
        [Test]
        public void TotalSumsLines() { Assert.AreEqual(0, new OrderService(null).Total(null)); }

        [Fact]
        public void Other() { }
    }
}
"""


def test_csharp_rows() -> None:
    fx = parse("csharp", SOURCE, "src/Orders/OrderService.cs")
    assert fx.language == "csharp" and fx.error_lines == [] and fx.package == "Shop.Orders"
    assert symbols(fx) == [
        ("OrderService", "class", 8, 20, "", False),
        ("OrderService.OrderService", "method", 12, 12, "OrderService", False),
        ("OrderService.Total", "method", 14, 19, "OrderService", False),
        ("IOrderService", "interface", 22, 22, "", False),
        ("IOrderService.Total", "method", 22, 22, "IOrderService", False),
        ("Money", "struct", 24, 24, "", False),
        ("Status", "enum", 26, 26, "", False),
        ("OrderServiceTests", "class", 28, 36, "", True),
        ("OrderServiceTests.TotalSumsLines", "method", 31, 32, "OrderServiceTests", True),
        ("OrderServiceTests.Other", "method", 34, 35, "OrderServiceTests", True),
    ]
    assert fx.symbols[0].docstring == "<summary>An order line.</summary>"
    assert imports(fx) == [
        ("System", "", "", 1),
        ("System.Collections.Generic", "", "", 2),
        ("Newtonsoft.Json.JsonConvert", "", "Json", 3),
    ]
    assert calls(fx) == [
        ("OrderService.Total", "_repo.Lines", 16),
        ("OrderService.Total", "Log", 17),
        ("OrderService.Total", "", 18),  # new Calculator().Sum(...): a call on a new object
        ("OrderService.Total", "Calculator", 18),
        ("OrderServiceTests.TotalSumsLines", "Assert.AreEqual", 32),
        ("OrderServiceTests.TotalSumsLines", "", 32),
        ("OrderServiceTests.TotalSumsLines", "OrderService", 32),
    ]
    assert inherits(fx) == [("OrderService", "ServiceBase", 8, "extends"),
                            ("OrderService", "IOrderService", 8, "implements")]

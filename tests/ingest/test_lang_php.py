"""Golden test of PHP extraction by the query engine (queries/php.scm)."""

from __future__ import annotations

from tests.ingest.langrows import calls, imports, inherits, parse, symbols

SOURCE = """\
<?php

namespace App\\Billing;

use App\\Models\\Invoice;
use Psr\\Log\\LoggerInterface as Logger;

require_once __DIR__ . '/helpers.php';

/**
 * Sends invoices.
 */
class InvoiceMailer extends BaseMailer implements Mailer, Queueable
{
    use Retries;

    public function __construct(private Logger $log) {}

    public function send(Invoice $invoice): bool
    {
        $this->log->info('sending');
        $pdf = Pdf::render($invoice);
        return $this->deliver(format_total($invoice->total()), new Envelope($pdf));
    }
}

interface Mailer { public function send(Invoice $invoice): bool; }

function format_total(int $cents): string { return number_format($cents / 100, 2); }

final class InvoiceMailerTest extends TestCase
{
    public function testSendReturnsTrue(): void
    {
        $this->assertTrue((new InvoiceMailer(new NullLogger()))->send(new Invoice()));
    }
}
"""


def test_php_rows() -> None:
    fx = parse("php", SOURCE, "tests/InvoiceMailerTest.php")
    assert fx.language == "php" and fx.error_lines == [] and fx.package == "App.Billing"
    assert symbols(fx) == [
        ("InvoiceMailer", "class", 13, 25, "", False),
        ("InvoiceMailer.__construct", "method", 17, 17, "InvoiceMailer", False),
        ("InvoiceMailer.send", "method", 19, 24, "InvoiceMailer", False),
        ("Mailer", "interface", 27, 27, "", False),
        ("Mailer.send", "method", 27, 27, "Mailer", False),
        ("format_total", "function", 29, 29, "", False),
        ("InvoiceMailerTest", "class", 31, 37, "", False),
        ("InvoiceMailerTest.testSendReturnsTrue", "method", 33, 36, "InvoiceMailerTest", True),
    ]
    assert fx.symbols[0].docstring == "Sends invoices."
    assert imports(fx) == [
        ("App\\Models\\Invoice", "", "", 5),
        ("Psr\\Log\\LoggerInterface", "", "Logger", 6),
        ("./helpers.php", "", "", 8),  # require_once __DIR__ . '/helpers.php'
    ]
    assert calls(fx) == [
        ("InvoiceMailer.send", "this.log.info", 21),
        ("InvoiceMailer.send", "Pdf.render", 22),
        ("InvoiceMailer.send", "this.deliver", 23),
        ("InvoiceMailer.send", "format_total", 23),
        ("InvoiceMailer.send", "invoice.total", 23),
        ("InvoiceMailer.send", "Envelope", 23),
        ("format_total", "number_format", 29),
        ("InvoiceMailerTest.testSendReturnsTrue", "this.assertTrue", 35),
        ("InvoiceMailerTest.testSendReturnsTrue", "", 35),
        ("InvoiceMailerTest.testSendReturnsTrue", "InvoiceMailer", 35),
        ("InvoiceMailerTest.testSendReturnsTrue", "NullLogger", 35),
        ("InvoiceMailerTest.testSendReturnsTrue", "Invoice", 35),
    ]
    assert inherits(fx) == [
        ("InvoiceMailer", "BaseMailer", 13, "extends"),
        ("InvoiceMailer", "Mailer", 13, "implements"),
        ("InvoiceMailer", "Queueable", 13, "implements"),
        ("InvoiceMailer", "Retries", 15, "implements"),  # trait use
        ("InvoiceMailerTest", "TestCase", 31, "extends"),
    ]

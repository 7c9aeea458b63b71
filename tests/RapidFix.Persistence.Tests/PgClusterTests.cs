using System.Net;
using System.Net.Sockets;
using Npgsql;

namespace RapidFix.Persistence.Tests;

/// <summary>The throwaway cluster every PostgreSQL test starts.</summary>
public sealed class PgClusterTests
{
    [PostgresFact]
    public void A_cluster_whose_port_was_taken_before_it_bound_starts_on_another_and_answers_there()
    {
        // The race a port chosen before the server binds it always has: another test took it meanwhile.
        using var busy = new TcpListener(IPAddress.Loopback, 0);
        busy.Start();
        int taken = ((IPEndPoint)busy.LocalEndpoint).Port;

        using var cluster = PgCluster.Create(durable: false, firstPort: taken);

        Assert.NotEqual(taken, cluster.Port);
        using var connection = new NpgsqlConnection(cluster.ConnectionString());
        connection.Open();
        using var command = new NpgsqlCommand("SELECT current_setting('port')", connection);
        Assert.Equal(cluster.Port.ToString(System.Globalization.CultureInfo.InvariantCulture), command.ExecuteScalar());
    }
}
